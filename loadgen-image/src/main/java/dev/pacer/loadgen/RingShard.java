package dev.pacer.loadgen;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import dev.pacer.contract.RunRequest;
import dev.pacer.loadgen.pacing.PacingLoop;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * What both protocols' shards share: their connections opened before the load on a {@link PacingClientConnector} of their
 * own, requests and free connections (HTTP/2: free streams) paired by a {@link ConnectionRing}, closed connections
 * replaced through one {@link Reconnector}, requests on the wire too long timed out by a periodic sweep, and the count of
 * requests held, so that a shard holding {@code maxQueued} unanswered refuses the next. A subclass says how a connection
 * opens, how a request goes out on one, and how many requests a connection carries at once.
 *
 * @param <C> a connection
 * @param <R> a request waiting for one, or on the wire
 */
abstract class RingShard<C extends RingShard.Carrier, R extends RingShard.Request> implements Shard {
    /** A connection as the ring and the sweeps see it. */
    interface Carrier {
        /** It may carry another request. */
        boolean usable();

        /** It was opened and given to the ring (over TLS: after its handshake): only such a one carries requests waiting. */
        boolean joined();

        /** It is closed, or retiring: another is opened in its place, once, whoever asks first. */
        void replaceOnce();

        /** Requests on it longer than the timeout fail so. */
        void timeOutIfLate(long nowNanos);
    }

    /** A request taken: its intended time, its hand-off by the pacing loop, and when it went to the wire. */
    static class Request {
        final long intendedNanos;
        final long handedNanos;
        long begunNanos;
        /** Counted as begun, and its send lag told: once, at its first dispatch; its timeout runs from then. */
        boolean dispatched;
        /** Times the server refused it unprocessed after it went to the wire, and it went back to go out once more. */
        int resends;

        Request(long intendedNanos, long handedNanos) {
            this.intendedNanos = intendedNanos;
            this.handedNanos = handedNanos;
        }
    }

    /**
     * How many times a request may go out again while the server answers others on the connections that refuse it (a
     * server closing each connection after some requests): more would be a server refusing it in particular.
     */
    static final int MAX_RESENDS = 8;

    protected final QueuedThreadPool threads;
    protected final PacingClientConnector connector;
    protected final Completions completions;
    protected final long timeoutNanos;
    protected final Set<C> live = ConcurrentHashMap.newKeySet();
    /** Connections reopened in place of closed ones, until their first request: when each was opened. */
    protected final Map<C, Long> reopenedAtNanos = new ConcurrentHashMap<>();
    protected ConnectionRing<C, R> ring;
    protected Reconnector<C> reconnector;
    protected volatile boolean running;
    private final int connections;
    private final int maxOutstanding;
    private final AtomicLong finished = new AtomicLong();
    /** Every open tried, for the tests. */
    private final AtomicLong opensTried = new AtomicLong();
    private long handedOff;   // the pacing loop's thread's alone
    /** When a request last went back to the ring to go out again: the sweep looks for such ones only for a while after. */
    private volatile long lastResendNanos = Long.MIN_VALUE / 2;

    RingShard(int index, RunRequest spec, int connections, int maxQueued, Completions completions) {
        this.completions = completions;
        this.connections = connections;
        this.maxOutstanding = maxQueued;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(spec.effectiveRequestTimeoutMs());
        threads = new QueuedThreadPool(8, 2);
        threads.setName("pacer-shard-" + index);
        threads.setReservedThreads(0);   // also keeps the selector's production, and a loop it paces, on one thread
        connector = new PacingClientConnector();
        connector.setExecutor(threads);
        connector.setConnectTimeout(Duration.ofMillis(LoadRun.CONNECT_TIMEOUT_MS));
    }

    /** A connection, once it can carry requests, or why it could not be opened. */
    protected abstract CompletableFuture<C> open();

    /** How many requests it carries at once, known once it is open. */
    protected abstract int slots(C connection);

    protected abstract R newRequest(long intendedNanos, long handedNanos);

    /** Sends a request on a connection that is its own (HTTP/2: a stream of it) until its response ends. */
    protected abstract void send(C connection, R request);

    /** Fails a request that never went out: no connection could be opened for it. */
    protected abstract void neverSent(R request, Throwable failure);

    /** Stops the shard's clients (its connector among them): the run is over. */
    protected abstract void stopClients() throws Exception;

    /**
     * Opens every connection, once the connector started, and gives them to the ring, the first request of each before
     * the second of any; then the replacements and the timeout sweeps run.
     */
    protected final void openAll(long timeoutMs, boolean lastUsedFirst) throws Exception {
        running = true;
        // a closed connection is replaced once, by whichever finds it closed first: its own close (usually), or the
        // ring taking it. Opened off the thread that found it closed (the pacing thread, often)
        ring = new ConnectionRing<>(Carrier::usable, Carrier::replaceOnce, this::dispatch, lastUsedFirst);
        reconnector = new Reconnector<>(this::countedOpen, this::joinReopened, this::failWaitingIfNoneOpen, () -> running,
                connector.getScheduler(), threads);
        List<CompletableFuture<C>> opening = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            opening.add(countedOpen());
        }
        CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new)).get(timeoutMs, TimeUnit.MILLISECONDS);
        List<C> opened = opening.stream().map(CompletableFuture::join).toList();
        opened.forEach(this::join);
        int most = opened.stream().mapToInt(this::slots).max().orElse(0);
        for (int slot = 0; slot < most; slot++) {
            for (C connection : opened) {
                if (slot < slots(connection)) {
                    ring.release(connection);
                }
            }
        }
        scheduleTimeoutSweep();
    }

    /** Marks it joined; one closed before it joined is replaced now, since its own close did not replace it. */
    protected abstract void join(C connection);

    private CompletableFuture<C> countedOpen() {
        opensTried.incrementAndGet();
        return open();
    }

    long opensTried() {
        return opensTried.get();
    }

    private void joinReopened(C opened) {
        reopenedAtNanos.put(opened, System.nanoTime());
        if (!opened.usable()) {   // closed already: its close may have run before the put
            reopenedAtNanos.remove(opened);
        }
        join(opened);
        for (int slot = slots(opened); slot > 0; slot--) {
            ring.release(opened);
        }
    }

    /** A failed open fails the requests waiting only when no connection is left, open and in the ring, to carry them. */
    private void failWaitingIfNoneOpen(Throwable failure) {
        if (failure != null && live.stream().noneMatch(connection -> connection.joined() && connection.usable())) {
            ring.failWaiting(waiting -> neverSent(waiting, failure));
        }
    }

    /**
     * Every quarter of the request timeout (10 ms to 1 s), requests on the wire longer than the timeout fail (those
     * waiting to go out again too), and
     * closed connections (replaced already) leave the ring, where those behind the few carrying the load would pile up.
     */
    private void scheduleTimeoutSweep() {
        long everyMs = Math.clamp(TimeUnit.NANOSECONDS.toMillis(timeoutNanos) / 4, 10, 1_000);
        connector.getScheduler().schedule(() -> {
            if (!running) {
                return;
            }
            try {
                long now = System.nanoTime();
                live.forEach(connection -> connection.timeOutIfLate(now));
                // a request waiting to go out again has been on the wire since its first send: its timeout runs from it.
                // One sent back longer ago than twice the timeout and a second (late sweeps included) has been failed
                // by a sweep already: the queue (long, when the client is overloaded) is walked only after a resend
                if (now - lastResendNanos <= 2 * timeoutNanos + TimeUnit.SECONDS.toNanos(1)) {
                    ring.failWaiting(request -> request.dispatched && now - request.begunNanos > timeoutNanos,
                            request -> neverSent(request, new TimeoutException("no response within "
                                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (refused, waiting to go out again)")));
                }
                ring.pruneClosed();
            } finally {   // a failure in what a timeout triggers must not end the sweeps
                scheduleTimeoutSweep();
            }
        }, everyMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public final boolean trySend(long intendedNanos, long handedNanos) {
        if (handedOff - finished.get() >= maxOutstanding) {
            return false;
        }
        handedOff++;
        ring.offer(newRequest(intendedNanos, handedNanos));
        return true;
    }

    @Override
    public final Optional<CompletableFuture<PacingLoop.Result>> paceOnSelector(PacingLoop loop) {
        return running ? connector.pace(loop) : Optional.empty();
    }

    /** On the pacing thread, or on the thread that ended the previous request on that connection. */
    private void dispatch(C connection, R request) {
        if (!request.dispatched) {   // a request sent again keeps its first send: the timeout and the lag run from it
            request.dispatched = true;
            request.begunNanos = System.nanoTime();
            completions.begun();
            // a reopened connection's wait is told by the first request whose lag is told on it
            Long reopenedAt = reopenedAtNanos.isEmpty() ? null : reopenedAtNanos.remove(connection);
            completions.sendLag(Shard.sendLagNanos(request.intendedNanos, request.handedNanos, request.begunNanos, reopenedAt));
        }
        send(connection, request);
    }

    /**
     * Whether a request the server never began (HTTP/2: a stream above a GOAWAY's last, or one its connection took no
     * more before it went out) may go out once more ({@link #resend}), while the shard runs: a first time whatever the
     * server did, and again, up to {@link #MAX_RESENDS} times, when the connection that refused it had processed others
     * (a server that closes connections after some requests, refusing what was on the wire past its last). Otherwise it
     * fails: a server that refuses every stream is not retried in a loop.
     *
     * @param serverProcessedOthers the refusing connection carried streams the server processed
     */
    protected final boolean mayResend(R request, boolean serverProcessedOthers) {
        return running && (request.resends == 0 || serverProcessedOthers && request.resends < MAX_RESENDS);
    }

    /** Sends it on the next connection free, its intended time kept: the wait counts in its response time. */
    protected final void resend(R request) {
        request.resends++;
        requeue(request);
    }

    /**
     * It did not go out: the connection the ring gave it was found closed, or gone away, as it was sent. It goes back
     * to the ring as {@link #resend} sends it, no resend spent (the ring gives only connections open when it looks,
     * and each that closed meanwhile does so once), or fails when the shard stopped.
     */
    protected final void requeue(R request) {
        lastResendNanos = System.nanoTime();
        ring.offer(request);
    }

    /** A request ended, answered ({@code failure} null) or not: recorded. */
    protected final void finish(Request request, int status, Throwable failure) {
        finished.incrementAndGet();
        completions.completed(status, failure, request.intendedNanos, request.begunNanos);
    }

    @Override
    public final void closeInBackground() {
        running = false;
        connector.abandonPacing();   // its selector stops: nothing would end the loop's wait
        Thread.ofPlatform().daemon().name("pacer-shard-stop").start(() -> {
            try {
                stopClients();
                threads.stop();
            } catch (Exception e) {
                // the run is over; nothing waits for this
            }
        });
    }
}
