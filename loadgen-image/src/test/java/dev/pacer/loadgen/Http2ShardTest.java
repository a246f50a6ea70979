package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 shard against a real Jetty h2c server: every request answered once, as many streams at once per connection
 * as asked (counted by the server), closed connections replaced by one loop per shard, timeouts told.
 */
class Http2ShardTest {
    final RecordedCompletions completions = new RecordedCompletions();
    final ConcurrentLinkedQueue<RecordedCompletions.Done> done = completions.done;
    final AtomicInteger begun = completions.begun;
    final AtomicInteger served = new AtomicInteger();
    final AtomicInteger connectionsSeen = new AtomicInteger();
    /** The request's headers. */
    Map<String, String> headers = Map.of("X-Bench", "pacer");
    /** The length of each request's x-big header, as the server read it. */
    final ConcurrentLinkedQueue<Integer> bigHeadersRead = new ConcurrentLinkedQueue<>();
    /** The length of each request body the server read. */
    final ConcurrentLinkedQueue<Integer> bodiesRead = new ConcurrentLinkedQueue<>();
    /** Requests in the handler now, and the most seen at once, by the server's id of the connection. */
    final Map<String, AtomicInteger> inHandlerOn = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> mostAtOnceOn = new ConcurrentHashMap<>();
    static final int LARGE_RESPONSE_BYTES = 300 * 1024;
    Server server;
    ServerConnector connector;
    Shard shard;

    /**
     * An h2c server answering "ok" (201 to a POST, with the body's length), holding {@code /hold} 200 ms and
     * {@code /slow} 1 s, allowing {@code serverStreams} streams at once per connection.
     */
    int start(int serverStreams) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(64);
        server = new Server(threads);
        HttpConfiguration configuration = new HttpConfiguration();
        configuration.setRequestHeaderSize(64 * 1024);   // room for a header block longer than a frame
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(configuration);
        h2c.setMaxConcurrentStreams(serverStreams);
        connector = new ServerConnector(server, 1, 1, h2c);
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
                served.incrementAndGet();
                String big = request.getHeaders().get("x-big");
                if (big != null) {
                    bigHeadersRead.add(big.length());
                }
                String id = request.getConnectionMetaData().getId();
                int now = inHandlerOn.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                mostAtOnceOn.computeIfAbsent(id, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
                try {
                    switch (request.getHttpURI().getPath()) {
                        case "/hold" -> Thread.sleep(200);
                        case "/slow" -> Thread.sleep(1_000);
                        default -> { }
                    }
                } finally {
                    inHandlerOn.get(id).decrementAndGet();
                }
                if ("/large".equals(request.getHttpURI().getPath())) {   // many frames, many TCP segments
                    response.write(true, ByteBuffer.wrap(new byte[LARGE_RESPONSE_BYTES]), callback);
                    return true;
                }
                if ("/early".equals(request.getHttpURI().getPath())) {   // answers without reading the body
                    response.setStatus(413);
                    response.write(true, null, callback);
                    return true;
                }
                if ("POST".equals(request.getMethod())) {
                    String body = Content.Source.asString(request, StandardCharsets.UTF_8);
                    bodiesRead.add(body.length());
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

    Shard shard(int port, String method, String path, String body, int connections, int streams, long timeoutMs) throws Exception {
        RunRequest spec = new RunRequest("http://127.0.0.1:" + port, 1000, connections, 1, RunRequest.H2C,
                new RunRequest.HttpRequestSpec(method, path, headers, body), 0, 1000, 1000, 0, timeoutMs, 0,
                null, null, null, streams);
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

    void sendAtOnce(Shard shard, int requests) {
        for (int i = 0; i < requests; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == requests);
    }

    @Test
    void everyRequestIsAnsweredOnceOverItsConnectionsWithItsOwnTimes() throws Exception {
        Shard shard = shard(start(128), "GET", "/plaintext", null, 4, 1, 5_000);
        assertThat(shard).isInstanceOf(Http2Shard.class);
        sendAtOnce(shard, 2_000);
        assertThat(done).allSatisfy(d -> {
            assertThat(d.status()).as("%s", d.failure()).isEqualTo(200);
            assertThat(d.begunNanos()).isPositive();
        });
        assertThat(done).extracting(RecordedCompletions.Done::intendedNanos).doesNotHaveDuplicates().hasSize(2_000);
        assertThat(served).hasValue(2_000);
        assertThat(begun).hasValue(2_000);
        assertThat(connectionsSeen).as("the connections opened before the load, and no other").hasValue(4);
        assertThat(mostAtOnceOn.values()).as("one stream at a time by default").allSatisfy(most -> assertThat(most).hasValue(1));
    }

    /**
     * A read that filled less than its buffer read all the socket held: the connection waits for the selector, and does
     * not read again to find nothing (a system call per response). Requests one after another, each answered first.
     */
    @Test
    void aResponseReadWholeIsNotFollowedByAReadThatFindsNothing() throws Exception {
        Http2Shard shard = (Http2Shard) shard(start(128), "GET", "/plaintext", null, 1, 1, 5_000);
        int requests = 200;
        for (int i = 0; i < requests; i++) {
            int answered = i;
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
            await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> done.size() == answered + 1);
        }
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(shard.emptyReads()).as("reads that found nothing, over %d responses", requests).isLessThan(requests / 10);
    }

    /** Responses of many frames, each frame over several reads: every one read to its end, in whatever pieces it comes. */
    @Test
    void responsesLargerThanTheReadBufferAreReadWholeWhateverPiecesTheyComeIn() throws Exception {
        Shard shard = shard(start(128), "GET", "/large", null, 2, 2, 10_000);
        sendAtOnce(shard, 40);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(served).hasValue(40);
    }

    @Test
    void eachConnectionCarriesAsManyStreamsAtOnceAsAskedAndNoMore() throws Exception {
        Shard shard = shard(start(128), "GET", "/hold", null, 2, 4, 5_000);
        sendAtOnce(shard, 40);   // 40 held requests, 8 at a time: each connection full until the last round
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(mostAtOnceOn).as("both connections carried requests").hasSize(2);
        assertThat(mostAtOnceOn.values()).as("the server saw 4 streams at once on each, never 5").allSatisfy(most -> assertThat(most).hasValue(4));
    }

    @Test
    void theServersLowerStreamLimitIsKeptAndNoRequestFails() throws Exception {
        Shard shard = shard(start(2), "GET", "/hold", null, 1, 8, 5_000);
        sendAtOnce(shard, 12);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(mostAtOnceOn.values()).singleElement().satisfies(most -> assertThat(most).hasValue(2));
    }

    @Test
    void aBodyGoesWithItsLengthAndTheStatusIsTold() throws Exception {
        Shard shard = shard(start(128), "POST", "/echo", "héllo", 1, 1, 5_000);
        sendAtOnce(shard, 3);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(201));
    }

    /** Bodies larger than the server's windows (64 KiB at first) go out as its WINDOW_UPDATEs allow, two at once. */
    @Test
    void bodiesLargerThanTheServersWindowsGoOutWholeAsItsWindowsAllow() throws Exception {
        String body = "b".repeat(200_000);
        Shard shard = shard(start(128), "POST", "/echo", body, 1, 2, 5_000);
        sendAtOnce(shard, 6);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(201));
        assertThat(bodiesRead).hasSize(6).containsOnly(200_000);
    }

    /**
     * A server that answers before it read a body larger than its window: the client stops sending that body, and the
     * bodies after it on the connection still go out (none waits behind the one cut short).
     */
    @Test
    void aBodyAnsweredBeforeItWasReadIsCutShortAndTheNextBodiesStillGoOut() throws Exception {
        Shard shard = shard(start(128), "POST", "/early", "b".repeat(200_000), 1, 2, 2_000);
        sendAtOnce(shard, 6);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(413));
    }

    /** A header block longer than a frame (16 KiB) goes in a HEADERS frame and its CONTINUATIONs, every request. */
    @Test
    void aHeaderBlockLongerThanAFrameGoesOnInContinuations() throws Exception {
        headers = Map.of("X-Big", "h".repeat(40_000));
        Shard shard = shard(start(128), "GET", "/", null, 1, 2, 5_000);
        sendAtOnce(shard, 4);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        assertThat(bigHeadersRead).hasSize(4).containsOnly(40_000);
    }

    /**
     * A server shutting down gracefully sends a GOAWAY: the streams it took are answered, the connection is replaced,
     * and the next requests go out on the new one.
     */
    @Test
    void aGoAwayLetsTheStreamsTheServerTookEndAndTheConnectionIsReplaced() throws Exception {
        Shard shard = shard(start(128), "GET", "/hold", null, 1, 4, 5_000);
        for (int i = 0; i < 4; i++) {
            shard.trySend(i, System.nanoTime());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> served.get() == 4);   // all four in the handler, held
        // the connected end points are a live view: the replacement, opened as the GOAWAY arrives, is not shut down too
        List.copyOf(connector.getConnectedEndPoints()).forEach(endPoint ->
                ((org.eclipse.jetty.http2.HTTP2Connection) endPoint.getConnection()).getSession().shutdown());
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 4);
        assertThat(done).as("the streams the server took, answered").allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(connectionsSeen).as("replaced, once").hasValue(2));
        for (int i = 0; i < 4; i++) {
            shard.trySend(10 + i, System.nanoTime());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 8);
        assertThat(done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
    }

    @Test
    void aRequestUnansweredInTimeFailsAsATimeoutAndTheConnectionCarriesTheNext() throws Exception {
        Shard shard = shard(start(128), "GET", "/slow", null, 1, 1, 100);
        shard.trySend(1, System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
        assertThat(done.peek().failure()).isInstanceOf(TimeoutException.class);
        assertThat(done.peek().status()).isZero();
        shard.trySend(2, System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
        assertThat(List.copyOf(done).get(1).failure()).as("slow again: a timeout again").isInstanceOf(TimeoutException.class);
        assertThat(connectionsSeen).as("its stream reset, the connection stays").hasValue(1);
    }

    /**
     * A server gone closes all 20 connections and refuses their replacements: the shard's one retry loop tries a connect
     * every {@value Reconnector#REOPEN_DELAY_MS} ms, not one loop per connection, and the requests waiting fail as
     * connection errors. Once the server is back, each closed connection is replaced once. The bound on the connects
     * comes from the time that passed; timers only fire late, so a slow machine makes fewer.
     */
    @Test
    void aServerGoneIsRetriedByOneLoopPerShardAndEachConnectionIsReplacedOnceItIsBack() throws Exception {
        int port = start(128);
        Http2Shard shard = (Http2Shard) shard(port, "GET", "/", null, 20, 1, 5_000);
        sendAtOnce(shard, 40);   // every connection carries requests
        long opensBefore = shard.opensTried();
        long gone = System.nanoTime();
        server.stop();
        for (int i = 0; i < 10; i++) {
            shard.trySend(i, System.nanoTime());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 50);
        assertThat(done.stream().skip(40).toList()).as("the requests sent while no connection could be opened")
                .allSatisfy(d -> assertThat(d.failure()).isNotNull());
        Thread.sleep(1_000);
        long retries = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - gone) / Reconnector.REOPEN_DELAY_MS + 1;
        assertThat(shard.opensTried() - opensBefore).as("one connect per closed connection, then one per %d ms", Reconnector.REOPEN_DELAY_MS)
                .isLessThanOrEqualTo(20 + retries);

        connectionsSeen.set(0);
        connector.setPort(port);
        try {
            server.start();
        } catch (java.io.IOException taken) {   // another process took the port meanwhile: nothing to tell
            org.junit.jupiter.api.Assumptions.abort("port " + port + " was taken while the server was away: " + taken);
        }
        await("every closed connection replaced").atMost(Duration.ofSeconds(30)).until(() -> connector.getConnectedEndPoints().size() == 20);
        Thread.sleep(2 * Reconnector.REOPEN_DELAY_MS);   // a replacement counted twice would open a 21st by now
        assertThat(connectionsSeen).as("each replaced once").hasValue(20);
        for (int i = 0; i < 20; i++) {
            shard.trySend(i, System.nanoTime());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == 70);
        assertThat(done.stream().skip(50).toList()).as("the replacements carry the load").allSatisfy(d -> assertThat(d.status()).isEqualTo(200));
    }

    /** A server that accepts and closes at once: one connect per 100 ms for the shard, not one per connection. */
    @Test
    void aServerThatClosesEveryConnectionAtOnceIsNotReconnectedToInALoop() throws Exception {
        int port = start(128);
        Http2Shard shard = (Http2Shard) shard(port, "GET", "/", null, 4, 1, 5_000);
        long opensBefore = shard.opensTried();
        long from = System.nanoTime();
        connector.addEventListener(new org.eclipse.jetty.io.Connection.Listener() {
            @Override
            public void onOpened(org.eclipse.jetty.io.Connection connection) {
                connection.getEndPoint().close();   // from now: accepted, then closed at once
            }
        });
        connector.getConnectedEndPoints().forEach(endPoint -> endPoint.close());
        Thread.sleep(1_000);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from);
        long opens = shard.opensTried() - opensBefore;
        assertThat(opens).as("connects in %d ms", elapsedMs).isPositive()
                .isLessThanOrEqualTo(elapsedMs / Reconnector.REOPEN_DELAY_MS + 1);
    }
}
