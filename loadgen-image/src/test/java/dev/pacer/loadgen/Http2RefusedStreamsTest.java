package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.pacer.contract.RunRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Streams a server never began, above the last one its GOAWAY names (RFC 9113 §6.8: safe to send again), against a
 * server written frame by frame for it: Jetty's answers every stream it was sent before its GOAWAY, so it cannot name a
 * last stream lower than those on the wire, and nginx does so only after its 1,000th request on a connection.
 */
class Http2RefusedStreamsTest {
    private static final int HEADERS = 1;
    private static final int SETTINGS = 4;
    private static final int GOAWAY = 7;
    private static final int FLAG_ACK = 0x1;
    private static final int FLAG_END_STREAM = 0x1;
    private static final int FLAG_END_HEADERS = 0x4;
    /** ":status: 200", the 8th entry of HPACK's static table, indexed. */
    private static final byte STATUS_200 = (byte) 0x88;

    final RecordedCompletions completions = new RecordedCompletions();
    /** The streams each connection received, in the order it accepted them. */
    final List<List<Integer>> streamsByConnection = new CopyOnWriteArrayList<>();
    ServerSocket server;
    Shard shard;
    /** Connections from this one on are accepted but never spoken to (no SETTINGS): they never open. */
    volatile int silentFromConnection = Integer.MAX_VALUE;

    /** How the server treats a connection: {@code index} counts them from 0 as accepted. */
    interface Behaviour {
        /** Called for each stream received; writes what the server sends back. */
        void onStream(int index, List<Integer> received, OutputStream out) throws IOException;
    }

    int start(Behaviour behaviour) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("raw-h2-accept").start(() -> {
            try {
                while (true) {
                    Socket socket = server.accept();
                    List<Integer> received = new CopyOnWriteArrayList<>();
                    int index = streamsByConnection.size();
                    streamsByConnection.add(received);
                    boolean silent = index >= silentFromConnection;
                    Thread.ofPlatform().daemon().name("raw-h2-" + index).start(() -> serve(socket, index, received, silent ? null : behaviour));
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
        return server.getLocalPort();
    }

    /** Answers as {@code behaviour} says; with none, reads and says nothing until the client closes. */
    private static void serve(Socket socket, int index, List<Integer> received, Behaviour behaviour) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            if (behaviour == null) {
                in.transferTo(OutputStream.nullOutputStream());
                return;
            }
            in.readFully(new byte[24]);   // the client's preface
            frame(out, SETTINGS, 0, 0, new byte[0]);
            while (true) {
                int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int streamId = in.readInt() & 0x7fff_ffff;
                in.readFully(new byte[length]);
                if (type == SETTINGS && (flags & FLAG_ACK) == 0) {
                    frame(out, SETTINGS, FLAG_ACK, 0, new byte[0]);
                } else if (type == HEADERS) {
                    received.add(streamId);
                    behaviour.onStream(index, received, out);
                }
            }
        } catch (EOFException | java.net.SocketException closed) {
            // the client closed the connection
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static void answer(OutputStream out, int streamId) throws IOException {
        frame(out, HEADERS, FLAG_END_HEADERS | FLAG_END_STREAM, streamId, new byte[] {STATUS_200});
    }

    static void goAway(OutputStream out, int lastStreamId) throws IOException {
        frame(out, GOAWAY, 0, 0, ByteBuffer.allocate(8).putInt(lastStreamId).putInt(0).array());   // NO_ERROR
    }

    static void frame(OutputStream out, int type, int flags, int streamId, byte[] payload) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(9);
        header.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length);
        header.put((byte) type).put((byte) flags).putInt(streamId);
        synchronized (out) {
            out.write(header.array());
            out.write(payload);
            out.flush();
        }
    }

    Shard shard(int port, int streams) throws Exception {
        return shard(port, streams, 5_000);
    }

    Shard shard(int port, int streams, long timeoutMs) throws Exception {
        RunRequest spec = new RunRequest("http://127.0.0.1:" + port, 1000, 1, 1, RunRequest.H2C,
                new RunRequest.HttpRequestSpec("GET", "/", Map.of(), null), 0, 1000, 1000, 0, timeoutMs, 0,
                null, null, null, streams);
        shard = Shard.of(0, spec, Shard.resource(spec), 1, 10_000, completions);
        shard.connect(5_000);
        return shard;
    }

    /** Sends {@code requests} at once and waits until every one is answered 200. */
    void sendAllAnswered(Shard shard, int requests) {
        for (int i = 0; i < requests; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> completions.done.size() == requests);
        assertThat(completions.done).allSatisfy(d -> assertThat(d.status()).as("%s", d.failure()).isEqualTo(200));
    }

    @AfterEach
    void stop() throws IOException {
        if (shard != null) {
            shard.closeInBackground();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * The first connection takes three streams at once, answers the first, and goes away naming it as its last: the
     * other two go out once more, on the connection that replaces it, and are answered. Each request is counted once.
     */
    @Test
    void streamsAboveTheLastOneAGoAwayNamesGoOutOnceMoreOnTheNextConnectionAndAreAnswered() throws Exception {
        Shard shard = shard(start((index, received, out) -> {
            if (index > 0) {
                answer(out, received.getLast());
            } else if (received.size() == 3) {
                answer(out, received.getFirst());
                goAway(out, received.getFirst());
            }
        }), 3);
        sendAllAnswered(shard, 3);
        assertThat(streamsByConnection.getFirst()).containsExactly(1, 3, 5);
        assertThat(streamsByConnection.get(1)).as("the two the server never began, on its replacement").hasSize(2);
        assertThat(completions.begun).as("each request counted once on the wire").hasValue(3);
        assertThat(completions.sendLags).as("and its send lag told once").hasValue(3);
        assertThat(completions.resent).as("the two sent again, told as such").hasValue(2);
    }

    /**
     * Every connection answers its first stream and goes away naming it, as a server closing connections after a number
     * of requests does: three requests on the wire at once are refused once and twice, each time by a connection that
     * answered another, and go out again until answered: none fails, each is counted once on the wire.
     */
    @Test
    void aRequestRefusedAgainByConnectionsThatAnswerOthersGoesOutUntilAnswered() throws Exception {
        Shard shard = shard(start((index, received, out) -> {
            if (received.size() == 3 - index) {   // every request left on the wire: the first connection has all three
                answer(out, received.getFirst());
                goAway(out, received.getFirst());
            }
        }), 3);
        sendAllAnswered(shard, 3);
        assertThat(streamsByConnection.stream().filter(streams -> !streams.isEmpty()).count())
                .as("one request answered per connection: %s", streamsByConnection).isEqualTo(3);
        assertThat(completions.begun).as("each request counted once on the wire").hasValue(3);
        assertThat(completions.sendLags).hasValue(3);
        // each connection answers one: the others went back twice (to the second connection), then once (to the third)
        assertThat(completions.resent).as("sent again: %s", streamsByConnection).hasValue(3);
    }

    /**
     * The same server with ten requests on the wire at once: each connection answers one and refuses the rest, so the
     * last request is refused nine times; it went out again eight times, the most a request may, and then fails.
     */
    @Test
    void aRequestRefusedMoreThanEightTimesFailsWhateverTheServerAnswers() throws Exception {
        int requests = RingShard.MAX_RESENDS + 2;
        Shard shard = shard(start((index, received, out) -> {
            if (received.size() == requests - index) {
                answer(out, received.getFirst());
                goAway(out, received.getFirst());
            }
        }), requests);
        for (int i = 0; i < requests; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> completions.done.size() == requests);
        assertThat(completions.done.stream().filter(d -> d.status() == 200)).as("answered, one per connection").hasSize(requests - 1);
        assertThat(completions.done.stream().filter(d -> d.status() == 0)).singleElement()
                .satisfies(d -> assertThat(d.failure()).hasMessageContaining("GOAWAY"));
        // the first connection had every request, the next one fewer each, down to the two the ninth connection had
        assertThat(streamsByConnection.subList(0, requests - 1)).extracting(List::size)
                .containsExactly(10, 9, 8, 7, 6, 5, 4, 3, 2);
        assertThat(completions.resent).as("sent again: %s", streamsByConnection).hasValue(9 + 8 + 7 + 6 + 5 + 4 + 3 + 2);
        assertThat(completions.begun).hasValue(requests);
    }

    /** A server that goes away at every stream, naming none: each request goes out twice, then fails, and no more. */
    @Test
    void aRequestRefusedTwiceFailsAndIsNotSentInALoop() throws Exception {
        Shard shard = shard(start((index, received, out) -> {
            if (received.size() == 1) {
                goAway(out, 0);
            }
        }), 1);
        shard.trySend(0, System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> completions.done.size() == 1);
        assertThat(completions.done.peek().status()).isZero();
        assertThat(completions.done.peek().failure()).hasMessageContaining("GOAWAY");
        Thread.sleep(3 * Reconnector.REOPEN_DELAY_MS);   // a third send would have come by now
        assertThat(streamsByConnection.stream().mapToInt(List::size).sum()).as("streams the server received").isEqualTo(2);
        assertThat(completions.begun).hasValue(1);
        assertThat(completions.sendLags).hasValue(1);
        assertThat(completions.resent).as("sent again once, not at its second refusal").hasValue(1);
    }

    /**
     * A server that goes away naming no stream and is gone: the request waits to go out again until no connection can
     * be opened, then fails as never sent; it was counted, and its lag told, when it first went out.
     */
    @Test
    void aRefusedRequestThatFindsNoConnectionFailsCountedOnce() throws Exception {
        Shard shard = shard(start((index, received, out) -> {
            server.close();   // no replacement can be opened
            goAway(out, 0);
        }), 1);
        shard.trySend(0, System.nanoTime());
        await().atMost(Duration.ofSeconds(30)).until(() -> completions.done.size() == 1);
        assertThat(completions.done.peek().status()).isZero();
        assertThat(completions.done.peek().failure()).isNotNull();
        assertThat(streamsByConnection.getFirst()).hasSize(1);
        assertThat(completions.begun).hasValue(1);
        assertThat(completions.sendLags).as("told once").hasValue(1);
        assertThat(completions.resent).as("it never went out again").hasValue(0);
    }

    /**
     * A request refused once waits for its second stream while the replacement connection never opens (its server says
     * nothing): it fails as a timeout once the timeout from its first send passed, not when the open gives up (20 s).
     */
    @Test
    void aRefusedRequestWaitingToGoOutAgainTimesOutFromItsFirstSend() throws Exception {
        silentFromConnection = 1;
        Shard shard = shard(start((index, received, out) -> goAway(out, 0)), 1, 300);
        long sent = System.nanoTime();
        shard.trySend(0, sent);
        await().atMost(Duration.ofSeconds(5)).until(() -> completions.done.size() == 1);
        assertThat(completions.done.peek().failure()).isInstanceOf(java.util.concurrent.TimeoutException.class)
                .hasMessageContaining("waiting to go out again");
        assertThat(streamsByConnection).as("the replacement was opened, and said nothing").hasSizeGreaterThanOrEqualTo(2);
        assertThat(completions.begun).hasValue(1);
        assertThat(completions.sendLags).hasValue(1);
    }
}
