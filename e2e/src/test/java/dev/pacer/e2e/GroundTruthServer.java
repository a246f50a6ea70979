package dev.pacer.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An HTTP/1.1 server whose timings are known, for testing the kernel probe against the truth: each request's bytes
 * are left unread for {@code --wait-before-read-micros} after they arrive (so residence − service is at least that),
 * then read, then {@code --burn-micros} of CPU are spent before the response (so service is at least that), which is
 * written in one write, or in two {@code --split-write-gap-micros} apart (headers, then the body: service must run to
 * the last). With {@code --slow-after-requests=N} and {@code --slow-burn-micros}, the CPU per request becomes that
 * after the server's first N requests over all its connections, one request at a time: a capacity that drops to one
 * over the slow burn after a while, at a point a request count fixes, not the machine's speed. With {@code --close-unread-every=N}, after N requests
 * on a connection the server waits for the next one's bytes and closes the connection without reading them: a request
 * that arrived and was never read. With {@code --stall-first-millis=N}, the first request the server ever reads waits N ms
 * before its answer: a client with one connection builds a backlog behind it, as at a slow start. With
 * {@code --capacity-per-second=N}, answers leave on one schedule shared by every connection, one each 1/N s, with a
 * credit of 100 ms of unused slots (a token bucket): a capacity fixed by construction, not by the CPU's speed, so a busy
 * or slow machine does not move it. One thread per connection; keep-alive; GET without a body, answered "ok".
 * <pre>java -cp e2e/target/test-classes dev.pacer.e2e.GroundTruthServer --port=8080 --wait-before-read-micros=3000 --burn-micros=1000</pre>
 */
public final class GroundTruthServer {
    private static final byte[] HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BODY = "ok".getBytes(StandardCharsets.US_ASCII);

    private final long waitBeforeReadNanos;
    private final long burnNanos;
    private final long splitWriteGapNanos;
    private final long slowAfterRequests;
    private final long slowBurnNanos;
    /** Heads read so far, over every connection: the count at which the server slows. */
    private final AtomicLong headsRead = new AtomicLong();
    private final Object slowBurns = new Object();
    private final long closeUnreadEvery;
    /** Unused slots a burst may take at once: a pause of the machine shorter than this costs no capacity. */
    private static final long SLOT_CREDIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private long slotPeriodNanos;
    private long nextSlotNanos = System.nanoTime();

    /** The spec's {@code server.command} (YAML flow sequence) that starts this server on the run's port, with these arguments. */
    static String commandYaml(String... args) {
        String java = ProcessHandle.current().info().command().orElse("java");
        StringBuilder command = new StringBuilder("[\"" + java + "\", -cp, \"" + Processes.HOME.resolve("e2e/target/test-classes")
                + "\", " + GroundTruthServer.class.getName() + ", \"--port=${PORT}\"");
        for (String arg : args) {
            command.append(", \"").append(arg).append('"');
        }
        return command.append(']').toString();
    }

    private long stallFirstNanos;
    private final AtomicBoolean firstStalled = new AtomicBoolean();

    private GroundTruthServer(long waitBeforeReadMicros, long burnMicros, long splitWriteGapMicros, long slowAfterRequests, long slowBurnMicros,
                              long closeUnreadEvery) {
        this.waitBeforeReadNanos = TimeUnit.MICROSECONDS.toNanos(waitBeforeReadMicros);
        this.burnNanos = TimeUnit.MICROSECONDS.toNanos(burnMicros);
        this.splitWriteGapNanos = TimeUnit.MICROSECONDS.toNanos(splitWriteGapMicros);
        this.slowAfterRequests = slowAfterRequests;
        this.slowBurnNanos = TimeUnit.MICROSECONDS.toNanos(slowBurnMicros);
        this.closeUnreadEvery = closeUnreadEvery;
    }

    public static void main(String[] args) throws IOException {
        int port = 8080;
        long wait = 0;
        long burn = 0;
        long gap = -1;
        long slowAfter = -1;
        long slowBurn = 0;
        long closeUnreadEvery = 0;
        long stallFirst = 0;
        long capacityPerSecond = 0;
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("--port=")) {
                port = Integer.parseInt(value);
            } else if (arg.startsWith("--wait-before-read-micros=")) {
                wait = Long.parseLong(value);
            } else if (arg.startsWith("--burn-micros=")) {
                burn = Long.parseLong(value);
            } else if (arg.startsWith("--split-write-gap-micros=")) {
                gap = Long.parseLong(value);
            } else if (arg.startsWith("--slow-after-requests=")) {
                slowAfter = Long.parseLong(value);
            } else if (arg.startsWith("--slow-burn-micros=")) {
                slowBurn = Long.parseLong(value);
            } else if (arg.startsWith("--close-unread-every=")) {
                closeUnreadEvery = Long.parseLong(value);
            } else if (arg.startsWith("--stall-first-millis=")) {
                stallFirst = Long.parseLong(value);
            } else if (arg.startsWith("--capacity-per-second=")) {
                capacityPerSecond = Long.parseLong(value);
            } else {
                throw new IllegalArgumentException("unknown argument " + arg + " (--port=, --wait-before-read-micros=, --burn-micros=, "
                        + "--split-write-gap-micros=, --slow-after-requests=, --slow-burn-micros=, --close-unread-every=, --stall-first-millis=, --capacity-per-second=)");
            }
        }
        GroundTruthServer server = new GroundTruthServer(wait, burn, gap, slowAfter, slowBurn, closeUnreadEvery);
        server.stallFirstNanos = TimeUnit.MILLISECONDS.toNanos(stallFirst);
        server.slotPeriodNanos = capacityPerSecond > 0 ? TimeUnit.SECONDS.toNanos(1) / capacityPerSecond : 0;
        server.serve(port);
    }

    private void serve(int port) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", port), 1024);
            System.out.println("ground-truth server listening on " + port);
            while (true) {
                SocketChannel connection = server.accept();
                Thread.ofPlatform().daemon().start(() -> {
                    try (connection) {
                        converse(connection);
                    } catch (IOException closed) {
                        // the client went away: nothing to answer
                    }
                });
            }
        }
    }

    /** Requests one after the other on this connection, each left unread for the wait once its bytes are there. */
    private void converse(SocketChannel connection) throws IOException {
        connection.configureBlocking(false);
        // as HTTP servers do: a response's second part must not wait for the first one's acknowledgement (Nagle)
        connection.setOption(StandardSocketOptions.TCP_NODELAY, true);
        try (Selector selector = Selector.open()) {
            connection.register(selector, SelectionKey.OP_READ);
            ByteBuffer in = ByteBuffer.allocate(64 * 1024);
            long answered = 0;
            while (true) {
                selector.select();   // bytes arrived; not read yet
                selector.selectedKeys().clear();
                if (closeUnreadEvery > 0 && answered == closeUnreadEvery) {
                    return;   // closed with the request unread: the kernel resets the connection
                }
                pause(waitBeforeReadNanos);
                if (connection.read(in) < 0) {
                    return;
                }
                int end;
                while ((end = endOfHead(in)) >= 0) {
                    in.flip();
                    in.position(end);
                    in.compact();
                    if (stallFirstNanos > 0 && firstStalled.compareAndSet(false, true)) {
                        pause(stallFirstNanos);
                    }
                    if (slowAfterRequests >= 0 && headsRead.incrementAndGet() > slowAfterRequests) {
                        synchronized (slowBurns) {   // one at a time: the slowed capacity is 1 / slow burn, whatever the threads
                            burn(slowBurnNanos);
                        }
                    } else {
                        burn(burnNanos);
                    }
                    if (slotPeriodNanos > 0) {
                        pauseUntil(takeSlotNanos());
                    }
                    if (splitWriteGapNanos < 0) {
                        write(connection, ByteBuffer.allocate(HEAD.length + BODY.length).put(HEAD).put(BODY).flip());
                    } else {
                        write(connection, ByteBuffer.wrap(HEAD));
                        pause(splitWriteGapNanos);
                        write(connection, ByteBuffer.wrap(BODY));
                    }
                    answered++;
                }
            }
        }
    }

    /** The index just past the first request head's blank line in what was read, or -1. */
    private static int endOfHead(ByteBuffer in) {
        for (int i = 3; i < in.position(); i++) {
            if (in.get(i - 3) == '\r' && in.get(i - 2) == '\n' && in.get(i - 1) == '\r' && in.get(i) == '\n') {
                return i + 1;
            }
        }
        return -1;
    }

    private static void write(SocketChannel connection, ByteBuffer out) throws IOException {
        while (out.hasRemaining()) {
            if (connection.write(out) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * The instant this answer may leave: the slot after the last one taken, or the oldest still within the credit. Slots
     * are counted from the schedule, not from when a thread woke, so a late wake-up never lowers the capacity.
     */
    private synchronized long takeSlotNanos() {
        long oldestUsable = System.nanoTime() - SLOT_CREDIT_NANOS;
        long slot = nextSlotNanos - oldestUsable > 0 ? nextSlotNanos : oldestUsable;
        nextSlotNanos = slot + slotPeriodNanos;
        return slot;
    }

    /** Sleeps at least this long (a sleep may end late, never early). */
    private static void pause(long nanos) {
        pauseUntil(System.nanoTime() + nanos);
    }

    private static void pauseUntil(long untilNanos) {
        for (long left = untilNanos - System.nanoTime(); left > 0; left = untilNanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** Spends this much time on the CPU, or more when descheduled. */
    private static void burn(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
