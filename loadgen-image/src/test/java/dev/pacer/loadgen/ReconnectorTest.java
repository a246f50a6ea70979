package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shard's one reconnect loop alone, whatever the protocol: its connections are plain TCP connects to a loopback
 * listener that the tests close (the server gone: connects refused by the kernel) and open again on the same port.
 */
class ReconnectorTest {
    private static final String BACKGROUND = "reconnector-background";
    private static final String SCHEDULER = "reconnector-scheduler";

    private ServerSocketChannel server;
    private InetSocketAddress address;
    private final ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler(SCHEDULER, true);
    private final ExecutorService background = Executors.newCachedThreadPool(task -> Thread.ofPlatform().name(BACKGROUND).daemon().unstarted(task));
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Every open tried, with the thread that tried it. */
    private final List<String> opensOn = new CopyOnWriteArrayList<>();
    private final List<SocketChannel> opened = new CopyOnWriteArrayList<>();
    private final List<Throwable> refusals = new CopyOnWriteArrayList<>();
    private Reconnector<SocketChannel> reconnector;

    @BeforeEach
    void start() throws Exception {
        scheduler.start();
        listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        reconnector = new Reconnector<>(this::connect, opened::add, refusals::add, running::get, scheduler, background);
    }

    @AfterEach
    void stop() throws Exception {
        running.set(false);
        for (SocketChannel channel : opened) {
            channel.close();
        }
        if (server != null) {
            server.close();
        }
        background.shutdownNow();
        scheduler.stop();
    }

    private void listen(InetSocketAddress at) throws IOException {
        server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(at, 1_000);   // the kernel accepts into the backlog: no accept loop needed
        address = (InetSocketAddress) server.getLocalAddress();
    }

    private CompletableFuture<SocketChannel> connect() {
        String thread = Thread.currentThread().getName();
        opensOn.add(thread.startsWith(SCHEDULER) ? SCHEDULER : thread);   // Jetty numbers its scheduler's threads
        return CompletableFuture.supplyAsync(() -> {
            try {
                return SocketChannel.open(address);
            } catch (IOException refused) {
                throw new java.util.concurrent.CompletionException(refused);
            }
        }, background);
    }

    @Test
    void aConnectionThatCarriedRequestsIsReplacedAtOnceNotByTheRetryLoop() {
        reconnector.replace(true);

        await().atMost(Duration.ofSeconds(10)).until(() -> opened.size() == 1);
        assertThat(opensOn).as("one open, in the background, not on the retry loop's scheduler").containsExactly(BACKGROUND);
        assertThat(refusals).isEmpty();
    }

    @Test
    void aConnectionClosedBeforeCarryingAnyIsReopenedByTheRetryLoop() {
        reconnector.replace(false);

        await().atMost(Duration.ofSeconds(10)).until(() -> opened.size() == 1);
        assertThat(opensOn).as("a server that accepts and closes at once must not be reconnected to at once")
                .containsExactly(SCHEDULER);
    }

    @Test
    void whileTheServerIsGoneOneLoopRetriesAndEachClosedConnectionIsReplacedOnceItIsBack() throws Exception {
        server.close();   // connects are refused from now on
        int closed = 10;
        long from = System.nanoTime();
        for (int i = 0; i < closed; i++) {
            reconnector.replace(true);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> refusals.size() >= closed + 3);   // the loop has retried a few times
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from);
        assertThat(opensOn.size()).as("at most one connect per closed connection, then one per %d ms, in %d ms",
                        Reconnector.REOPEN_DELAY_MS, elapsedMs)
                .isLessThanOrEqualTo(closed + (int) (elapsedMs / Reconnector.REOPEN_DELAY_MS) + 1);
        assertThat(refusals).as("each failed open is told, with why").allMatch(failure -> failure instanceof ConnectException
                || failure.getCause() instanceof ConnectException);
        assertThat(opened).isEmpty();

        listen(address);   // the server is back, on the same port
        await().atMost(Duration.ofSeconds(10)).until(() -> opened.size() == closed);
        int opensOnceBack = opensOn.size();
        Thread.sleep(3 * Reconnector.REOPEN_DELAY_MS);   // a replacement counted twice would be opened by now
        assertThat(opened).as("each closed connection replaced once").hasSize(closed);
        assertThat(opensOn).as("the loop stopped once every replacement was open").hasSize(opensOnceBack);
    }

    @Test
    void nothingIsOpenedOnceTheShardStopped() throws Exception {
        running.set(false);
        reconnector.replace(true);
        reconnector.replace(false);

        Thread.sleep(3 * Reconnector.REOPEN_DELAY_MS);   // the retry loop's first turn has come and gone
        assertThat(opensOn).isEmpty();
    }

    @Test
    void aReplacementAskedWhileTheLoopRetriesWaitsForItAndIsOpenedOnce() throws Exception {
        server.close();
        reconnector.replace(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> refusals.size() >= 2);   // the loop runs
        int opensBefore = opensOn.size();
        long from = System.nanoTime();
        int asked = 5;
        for (int i = 0; i < asked; i++) {
            reconnector.replace(true);   // not opened at once: owed to the loop, with the last refusal told
        }
        int refusedBefore = refusals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> refusals.size() > refusedBefore);   // the loop's next turn
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from);
        assertThat(opensOn.size() - opensBefore).as("those asked meanwhile add no connect of their own: the loop's, one per %d ms, in %d ms",
                        Reconnector.REOPEN_DELAY_MS, elapsedMs)
                .isLessThanOrEqualTo((int) (elapsedMs / Reconnector.REOPEN_DELAY_MS) + 1);

        listen(address);
        await().atMost(Duration.ofSeconds(10)).until(() -> opened.size() == 1 + asked);
        Thread.sleep(3 * Reconnector.REOPEN_DELAY_MS);
        assertThat(opened).as("each replacement opened once").hasSize(1 + asked);
    }
}
