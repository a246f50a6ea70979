package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.pacer.contract.RunRequest;
import dev.pacer.loadgen.pacing.PacingLoop;
import dev.pacer.loadgen.pacing.Schedule;
import dev.pacer.loadgen.pacing.Ticker;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP/1.1 shard against a real Jetty server: every request answered once, closed connections replaced, timeouts told. */
class Http1ShardTest {
    final RecordedCompletions completions = new RecordedCompletions();
    final ConcurrentLinkedQueue<RecordedCompletions.Done> done = completions.done;
    final AtomicInteger begun = completions.begun;
    final AtomicInteger served = new AtomicInteger();
    final AtomicInteger connectionsSeen = new AtomicInteger();
    /** The server closes a connection idle this long (0: Jetty's default, 30 s). */
    long serverIdleTimeoutMs;
    /** Requests served per connection, by the server's id of the connection. */
    final Map<String, AtomicInteger> servedOn = new java.util.concurrent.ConcurrentHashMap<>();
    /** The server's count of the one request it answers with Connection: close, whatever {@code closeEvery} says (0: none). */
    final AtomicInteger closeTheNth = new AtomicInteger();
    Server server;
    ServerConnector connector;
    Shard shard;

    /** A server answering "ok" (201 to a POST, with the body's length), closing every {@code closeEvery}th connection, holding {@code /slow}. */
    int start(int closeEvery) throws Exception {
        server = new Server();
        connector = new ServerConnector(server, 1, 1);
        if (serverIdleTimeoutMs > 0) {
            connector.setIdleTimeout(serverIdleTimeoutMs);
        }
        connector.addEventListener(new org.eclipse.jetty.io.Connection.Listener() {
            @Override
            public void onOpened(org.eclipse.jetty.io.Connection connection) {
                connectionsSeen.incrementAndGet();
            }
        });
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                int n = served.incrementAndGet();
                servedOn.computeIfAbsent(request.getConnectionMetaData().getId(), id -> new AtomicInteger()).incrementAndGet();
                if (request.getHttpURI().getPath().equals("/slow")) {
                    Thread.sleep(500);
                }
                if ((closeEvery > 0 && n % closeEvery == 0) || n == closeTheNth.get()) {
                    response.getHeaders().put(HttpHeader.CONNECTION, "close");
                }
                if ("POST".equals(request.getMethod())) {
                    String body = Content.Source.asString(request, StandardCharsets.UTF_8);
                    response.setStatus(201);
                    response.write(true, ByteBuffer.wrap(Integer.toString(body.length()).getBytes(StandardCharsets.UTF_8)), callback);
                    return true;
                }
                response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        server.start();
        return connector.getLocalPort();
    }

    Shard shard(int port, String method, String path, String body, int connections, long timeoutMs) throws Exception {
        return shard(port, method, path, body, connections, timeoutMs, null);
    }

    Shard shard(int port, String method, String path, String body, int connections, long timeoutMs, String connectionOrder) throws Exception {
        RunRequest spec = new RunRequest("http://127.0.0.1:" + port, 1000, connections, 1, RunRequest.HTTP_1_1,
                new RunRequest.HttpRequestSpec(method, path, Map.of("X-Bench", "pacer"), body), 0, 1000, 1000, 0, timeoutMs, 0,
                null, null, connectionOrder);
        shard = Shard.of(0, spec, Shard.resource(spec), connections, 10_000, completions);
        shard.connect(5_000);
        return shard;
    }

    @AfterEach
    void stop() throws Exception {
        if (shard != null) {
            shard.closeInBackground();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void everyRequestIsAnsweredOnceOverItsConnectionsWithItsOwnTimes() throws Exception {
        Shard shard = shard(start(0), "GET", "/plaintext", null, 4, 5_000);
        assertThat(shard).isInstanceOf(Http1Shard.class);
        for (int i = 0; i < 2_000; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 2_000);
        assertThat(done).allSatisfy(d -> {
            assertThat(d.status()).isEqualTo(200);
            assertThat(d.failure()).isNull();
            assertThat(d.begunNanos()).isPositive();
        });
        assertThat(done).extracting(RecordedCompletions.Done::intendedNanos).doesNotHaveDuplicates().hasSize(2_000);
        assertThat(served).hasValue(2_000);
        assertThat(begun).hasValue(2_000);
        assertThat(connectionsSeen).as("the connections opened before the load, and no other").hasValue(4);
    }

    /** Each request sent once the one before it was answered, so the order of the idle connections alone chooses. */
    void sendOneAfterAnother(Shard shard, int requests) {
        for (int i = 0; i < requests; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
            int answered = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == answered);
        }
    }

    @Test
    void roundRobinSpreadsTheRequestsEvenlyOverEveryConnection() throws Exception {
        sendOneAfterAnother(shard(start(0), "GET", "/", null, 8, 5_000, RunRequest.ROUND_ROBIN), 40);
        assertThat(servedOn).hasSize(8);
        assertThat(servedOn.values()).allSatisfy(count -> assertThat(count).as("40 requests over 8 connections in turn").hasValue(5));
    }

    @Test
    void lastUsedFirstKeepsTheLoadOnTheConnectionsJustUsedAndTheOthersIdle() throws Exception {
        sendOneAfterAnother(shard(start(0), "GET", "/", null, 8, 5_000, RunRequest.LAST_USED_FIRST), 40);
        assertThat(connectionsSeen).as("all opened").hasValue(8);
        // a response is told before its connection is back: the next request may take the one released before it
        assertThat(servedOn).as("the connection just answered, or the one before it").hasSizeBetween(1, 2);
        assertThat(served).hasValue(40);
    }

    @Test
    void aConnectionTheServerClosesIsReplacedAndNoRequestIsLost() throws Exception {
        Shard shard = shard(start(10), "GET", "/", null, 2, 5_000);
        for (int i = 0; i < 500; i++) {
            shard.trySend(i, System.nanoTime());
            Thread.sleep(0, 200_000);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 500);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(served).hasValue(500);
        // the 2 first, and one for each of the 50 closed, at once: never more than one per close, and none missing
        await().atMost(Duration.ofSeconds(10)).until(() -> connectionsSeen.get() >= 2 + 50);
        assertThat(connectionsSeen).hasValue(2 + 50);
        await().atMost(Duration.ofSeconds(10)).until(() -> connector.getConnectedEndPoints().size() == 2);
    }

    /**
     * Last used first, one request at a time: one connection carries them, and the server's idle timeout closes the
     * others. Each is replaced at once, so the server keeps the connections the run asks for; left closed until a
     * burst needs them, the server would hold one.
     */
    @Test
    void connectionsTheServerClosesWhileIdleAreReplacedAtOnceSoTheCountAskedForStaysOpen() throws Exception {
        serverIdleTimeoutMs = 500;
        Shard shard = shard(start(0), "GET", "/", null, 4, 5_000, RunRequest.LAST_USED_FIRST);
        for (int i = 0; i < 30; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
            int answered = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == answered);
            Thread.sleep(50);   // well within the idle timeout: the connection carrying the requests stays open
        }
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        await().atMost(Duration.ofSeconds(10)).until(() -> connectionsSeen.get() > 4);   // the server closed idle ones
        await("every connection the server closed was replaced").atMost(Duration.ofSeconds(10))
                .until(() -> connector.getConnectedEndPoints().size() == 4);
    }

    @Test
    void aConnectionThatCannotBeReplacedFailsNoRequestWhileAnotherCarriesThem() throws Exception {
        closeTheNth.set(3);
        Shard shard = shard(start(0), "GET", "/", null, 2, 5_000);
        stopAcceptingOnceBothAreAccepted();
        for (int i = 0; i < 40; i++) {   // at once: most wait for a connection, and one of the two closes after its answer
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 40);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(served).as("every request answered, by the connection left").hasValue(40);
        assertThat(servedOn).hasSize(2);
    }

    @Test
    void whenNoConnectionIsLeftAndNoneCanBeOpenedTheRequestsWaitingFail() throws Exception {
        Shard shard = shard(start(1), "GET", "/", null, 2, 5_000);   // every answer closes its connection
        stopAcceptingOnceBothAreAccepted();
        for (int i = 0; i < 40; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 40);
        assertThat(served).as("one answer on each connection, then both closed").hasValue(2);
        assertThat(done).filteredOn(d -> d.failure() != null).as("the rest failed, none left waiting").hasSize(38)
                .allSatisfy(d -> assertThat(d.status()).isZero());
    }

    /**
     * A server gone closes all 50 connections and refuses their replacements: one retry loop per shard then tries a
     * connect every {@value Reconnector#REOPEN_DELAY_MS} ms, not one loop per connection (50 times as many), and the
     * requests waiting fail as connection errors. Once the server is back, each closed connection is replaced once.
     * The bound on the connects comes from the time that passed; timers only fire late, so a slow machine makes fewer.
     */
    @Test
    void aServerGoneIsRetriedByOneLoopPerShardAndEachConnectionIsReplacedOnceItIsBack() throws Exception {
        int port = start(0);
        Http1Shard shard = (Http1Shard) shard(port, "GET", "/", null, 50, 5_000);
        for (int i = 0; i < 100; i++) {   // every connection carries requests
            shard.trySend(i, System.nanoTime());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 100);
        long opensBefore = shard.opensTried();
        long gone = System.nanoTime();
        server.stop();
        for (int i = 0; i < 10; i++) {
            shard.trySend(i, System.nanoTime());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 110);
        assertThat(done.stream().skip(100).toList()).as("the requests sent while no connection could be opened")
                .allSatisfy(d -> assertThat(d.failure()).isNotNull());
        Thread.sleep(1_000);
        long retries = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - gone) / Reconnector.REOPEN_DELAY_MS + 1;
        assertThat(shard.opensTried() - opensBefore).as("one connect per closed connection, then one per %d ms", Reconnector.REOPEN_DELAY_MS)
                .isLessThanOrEqualTo(50 + retries);

        connectionsSeen.set(0);
        connector.setPort(port);
        try {
            server.start();
        } catch (java.io.IOException taken) {   // another process took the port meanwhile: nothing to tell
            org.junit.jupiter.api.Assumptions.abort("port " + port + " was taken while the server was away: " + taken);
        }
        await("every closed connection replaced").atMost(Duration.ofSeconds(30)).until(() -> connector.getConnectedEndPoints().size() == 50);
        Thread.sleep(2 * Reconnector.REOPEN_DELAY_MS);   // a replacement counted twice would open a 51st by now
        assertThat(connectionsSeen).as("each replaced once").hasValue(50);
        assertThat(connector.getConnectedEndPoints()).hasSize(50);
    }

    /**
     * No new connection from now on; the two open stay open. A connection the client counts as open may still wait in the
     * kernel's backlog, which closing the listening socket would reset: both must be the server's first.
     */
    void stopAcceptingOnceBothAreAccepted() {
        await().atMost(Duration.ofSeconds(10)).until(() -> connectionsSeen.get() == 2);
        connector.close();
    }

    @Test
    void aLoopPacedOnTheSelectorSendsItsWholeScheduleNeverEarlyAndEveryRequestIsAnswered() throws Exception {
        Shard shard = shard(start(0), "GET", "/", null, 4, 5_000);
        long startNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        Schedule schedule = Schedule.covering(startNanos, 2_000, TimeUnit.SECONDS.toNanos(1), 0);
        ConcurrentLinkedQueue<String> early = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> sendingThreads = new ConcurrentLinkedQueue<>();
        PacingLoop loop = new PacingLoop(schedule, 0, 1, 256, TimeUnit.MILLISECONDS.toNanos(1), startNanos + TimeUnit.SECONDS.toNanos(10),
                Ticker.SYSTEM, (n, intended, handed) -> {
            if (handed < intended) {
                early.add(n + ": handed " + (intended - handed) + " ns early");
            }
            sendingThreads.add(Thread.currentThread().getName());
            assertThat(shard.trySend(intended, handed)).isTrue();
        });

        PacingLoop.Result result = shard.paceOnSelector(loop).orElseThrow().get(30, TimeUnit.SECONDS);

        assertThat(result.sent()).isEqualTo(schedule.total());
        assertThat(result.unsent()).isZero();
        assertThat(early).isEmpty();
        assertThat(Set.copyOf(sendingThreads)).as("one thread, the selector's").hasSize(1)
                .allSatisfy(name -> assertThat(name).startsWith("pacer-shard-0"));
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == schedule.total());
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(done).extracting(RecordedCompletions.Done::intendedNanos).doesNotHaveDuplicates();
        assertThat(served).hasValue((int) schedule.total());
    }

    @Test
    void aBodyGoesWithItsLengthAndTheStatusIsTold() throws Exception {
        Shard shard = shard(start(0), "POST", "/echo", "héllo", 1, 5_000);
        shard.trySend(1, System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
        assertThat(done.peek().status()).isEqualTo(201);
        ByteBuffer encoded = Http1Shard.encode(Shard.resource(new RunRequest("http://h:1", 1, 1, 1, RunRequest.HTTP_1_1,
                new RunRequest.HttpRequestSpec("POST", "/echo?a=b", Map.of(), "héllo"), 0, 1, 1, 0, 0, 0)), URI.create("http://h:1/echo?a=b"), "h:1", "héllo");
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("POST /echo?a=b HTTP/1.1\r\nHost: h:1\r\n"
                + "Content-Type: text/plain;charset=UTF-8\r\nContent-Length: 6\r\n\r\nhéllo");
    }

    @Test
    void aRequestUnansweredInTimeFailsAsATimeoutAndTheNextGoesOutOnANewConnection() throws Exception {
        Shard shard = shard(start(0), "GET", "/slow", null, 1, 100);
        shard.trySend(1, System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
        assertThat(done.peek().failure()).isInstanceOf(TimeoutException.class);
        assertThat(done.peek().status()).isZero();
        // the connection timed out is closed (its answer would belong to nobody) and replaced at once
        await().atMost(Duration.ofSeconds(10)).until(() -> connectionsSeen.get() >= 2);
        assertThat(servedOn).as("the first request reached the server on the first connection").hasSize(1);
        shard.trySend(2, System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
        assertThat(List.copyOf(done).get(1).failure()).as("slow again: a timeout again, on the new connection").isInstanceOf(TimeoutException.class);
        assertThat(servedOn).as("the second went out on the replacement, not on the connection timed out").hasSize(2);
    }
}
