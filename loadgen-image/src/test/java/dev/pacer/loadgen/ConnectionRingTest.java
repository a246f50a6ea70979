package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;

/** Requests paired with idle connections: one request per connection at a time, none lost, first come first served, the idle connections in the order asked. */
@SuppressWarnings("unchecked")
class ConnectionRingTest {
    /** A connection that records what it carries and fails the test when it is given a second request at once. */
    static final class FakeConnection {
        final int id;
        volatile boolean closed;
        final AtomicInteger carrying = new AtomicInteger();

        FakeConnection(int id) {
            this.id = id;
        }
    }

    @Test
    void sendsAtOnceOnAnIdleConnectionAndQueuesWhenAllAreBusy() {
        List<String> sent = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> { },
                (c, r) -> sent.add(r + "@" + c.id));
        FakeConnection a = new FakeConnection(1);
        FakeConnection b = new FakeConnection(2);
        ring.release(a);
        ring.release(b);
        ring.offer(10);
        ring.offer(11);
        ring.offer(12);
        ring.offer(13);
        assertThat(sent).containsExactly("10@1", "11@2");
        assertThat(ring.waiting()).isEqualTo(2);
        ring.release(b);   // 11's response completed: the oldest waiting request goes out on it
        assertThat(sent).containsExactly("10@1", "11@2", "12@2");
        ring.release(a);
        assertThat(sent).containsExactly("10@1", "11@2", "12@2", "13@1");
        assertThat(ring.waiting()).isZero();
    }

    @Test
    void roundRobinTakesTheConnectionIdleLongestSoEveryOneCarriesItsShare() {
        List<String> sent = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> { },
                (c, r) -> sent.add(r + "@" + c.id));
        List<FakeConnection> connections = List.of(new FakeConnection(1), new FakeConnection(2), new FakeConnection(3));
        connections.forEach(ring::release);
        for (int request = 0; request < 6; request++) {   // each answered before the next is due
            ring.offer(request);
            ring.release(connections.get(Integer.parseInt(sent.getLast().split("@")[1]) - 1));
        }
        assertThat(sent).containsExactly("0@1", "1@2", "2@3", "3@1", "4@2", "5@3");
    }

    @Test
    void closedIdleConnectionsArePrunedAndHandedToReplaceWhileTheOpenOnesStay() {
        List<Integer> replaced = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> replaced.add(c.id),
                (c, r) -> sent.add(r + "@" + c.id), true);
        List<FakeConnection> connections = List.of(new FakeConnection(1), new FakeConnection(2), new FakeConnection(3));
        connections.forEach(ring::release);
        connections.get(0).closed = true;   // behind the others: never reached by a request taking the one released last
        connections.get(1).closed = true;
        ring.pruneClosed();
        assertThat(replaced).containsExactlyInAnyOrder(1, 2);
        ring.pruneClosed();
        assertThat(replaced).as("each once: they left the ring").hasSize(2);
        ring.offer(10);
        ring.offer(11);
        assertThat(sent).as("the open one carries the first; the second waits for it").containsExactly("10@3");
        assertThat(ring.waiting()).isEqualTo(1);
    }

    @Test
    void lastUsedFirstTakesTheConnectionReleasedLastSoTheOthersStayIdle() {
        List<String> sent = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> { },
                (c, r) -> sent.add(r + "@" + c.id), true);
        List<FakeConnection> connections = List.of(new FakeConnection(1), new FakeConnection(2), new FakeConnection(3));
        connections.forEach(ring::release);   // 3 was released last
        for (int request = 0; request < 4; request++) {   // each answered before the next is due: one connection carries them
            ring.offer(request);
            ring.release(connections.get(Integer.parseInt(sent.getLast().split("@")[1]) - 1));
        }
        ring.offer(4);   // two at once: the next most recent carries the second
        ring.offer(5);
        assertThat(sent).containsExactly("0@3", "1@3", "2@3", "3@3", "4@3", "5@2");
    }

    @Test
    void replacesAConnectionFoundClosedAndNeverUsesItAgain() {
        List<String> sent = new ArrayList<>();
        List<Integer> replaced = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> replaced.add(c.id),
                (c, r) -> sent.add(r + "@" + c.id));
        FakeConnection stale = new FakeConnection(1);
        ring.release(stale);
        ring.release(new FakeConnection(2));
        stale.closed = true;   // the server closed it while idle
        ring.offer(10);
        ring.offer(11);
        assertThat(sent).containsExactly("10@2");
        assertThat(replaced).containsExactly(1);
        assertThat(ring.waiting()).as("waits for the replacement").isEqualTo(1);
        ring.release(new FakeConnection(3));
        assertThat(sent).containsExactly("10@2", "11@3");
    }

    @Test
    void requestsWaitingWhenNoConnectionCanBeOpenedAreFailedOnceEach() {
        List<String> sent = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> { },
                (c, r) -> sent.add(r + "@" + c.id));
        FakeConnection only = new FakeConnection(1);
        ring.release(only);
        ring.offer(10);
        ring.offer(11);
        ring.offer(12);
        List<Integer> failed = new ArrayList<>();
        ring.failWaiting(failed::add);   // the server is gone: its replacement cannot be opened
        assertThat(failed).containsExactly(11, 12);
        assertThat(ring.waiting()).isZero();
        ring.release(only);
        ring.offer(13);
        assertThat(sent).containsExactly("10@1", "13@1");
    }

    @Test
    void underContentionEveryRequestGoesOutOnceAndNoConnectionCarriesTwo() throws Exception {
        int requests = 200_000;
        int connections = 4;
        AtomicIntegerArray sentTimes = new AtomicIntegerArray(requests);
        AtomicInteger overlaps = new AtomicInteger();
        // the responses complete on 3 "selector" threads, in the order the requests were sent
        List<LinkedBlockingQueue<FakeConnection>> completing = List.of(new LinkedBlockingQueue<>(), new LinkedBlockingQueue<>(),
                new LinkedBlockingQueue<>());
        CountDownLatch allSent = new CountDownLatch(requests);
        ConnectionRing<FakeConnection, Integer>[] ringHolder = new ConnectionRing[1];
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> true, c -> { }, (c, r) -> {
            if (c.carrying.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            sentTimes.incrementAndGet(r);
            completing.get(c.id % completing.size()).add(c);
            allSent.countDown();
        });
        ringHolder[0] = ring;
        Set<Thread> selectors = ConcurrentHashMap.newKeySet();
        for (LinkedBlockingQueue<FakeConnection> queue : completing) {
            Thread selector = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) {
                        FakeConnection c = queue.take();
                        c.carrying.decrementAndGet();
                        ringHolder[0].release(c);
                    }
                } catch (InterruptedException e) {
                    // the test is over
                }
            });
            selectors.add(selector);
        }
        for (int i = 0; i < connections; i++) {
            ring.release(new FakeConnection(i));
        }
        for (int r = 0; r < requests; r++) {
            ring.offer(r);
        }
        assertThat(allSent.await(60, TimeUnit.SECONDS)).as("every request sent").isTrue();
        selectors.forEach(Thread::interrupt);
        for (int r = 0; r < requests; r++) {
            assertThat(sentTimes.get(r)).as("request %d sent once", r).isEqualTo(1);
        }
        assertThat(overlaps.get()).as("a connection given a second request before its first completed").isZero();
    }

    @Test
    void failingTheWaitingRequestsPickedLeavesTheOthersInTheirOrder() {
        List<String> sent = new ArrayList<>();
        List<Integer> failed = new ArrayList<>();
        ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> { },
                (c, r) -> sent.add(r + "@" + c.id));
        for (int r = 1; r <= 6; r++) {
            ring.offer(r);
        }
        ring.failWaiting(r -> r % 2 == 0, failed::add);
        assertThat(failed).containsExactly(2, 4, 6);
        assertThat(ring.waiting()).isEqualTo(3);
        ring.release(new FakeConnection(1));
        assertThat(sent).containsExactly("1@1");
    }

    /** A request failed while connections free up on another thread is either sent or failed: never both, never neither. */
    @Test
    void aWaitingRequestIsFailedOrSentOnceWhileConnectionsFreeUp() throws Exception {
        for (int round = 0; round < 20; round++) {
            int requests = 2_000;
            Set<Integer> sent = ConcurrentHashMap.newKeySet();
            Set<Integer> failed = ConcurrentHashMap.newKeySet();
            AtomicInteger twice = new AtomicInteger();
            ConnectionRing<FakeConnection, Integer> ring = new ConnectionRing<>(c -> !c.closed, c -> { },
                    (c, r) -> {
                        if (!sent.add(r)) {
                            twice.incrementAndGet();
                        }
                    });
            for (int r = 0; r < requests; r++) {
                ring.offer(r);
            }
            CountDownLatch go = new CountDownLatch(1);
            Thread releaser = Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int c = 0; c < requests / 2; c++) {
                    ring.release(new FakeConnection(c));
                }
            });
            go.countDown();
            ring.failWaiting(r -> true, r -> {
                if (!failed.add(r)) {
                    twice.incrementAndGet();
                }
            });
            releaser.join();
            ring.failWaiting(r -> true, failed::add);   // what the releaser's connections did not take
            assertThat(twice).hasValue(0);
            assertThat(sent).doesNotContainAnyElementsOf(failed);
            assertThat(sent.size() + failed.size()).isEqualTo(requests);
        }
    }
}
