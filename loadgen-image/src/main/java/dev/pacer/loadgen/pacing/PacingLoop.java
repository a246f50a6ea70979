package dev.pacer.loadgen.pacing;

/**
 * Sends one shard's share of a {@link Schedule} on time: the requests {@code shard, shard + shards, …}. Each wake-up
 * sends every request that is due, at most {@code maxBatch} before looking at the clock again, and drops none: a
 * client that fell behind sends its backlog without waiting, {@code maxBatch} at a time, each request with its own
 * intended time. A request is never sent
 * before its intended time: the time it is sent is read after the check that it is due, on the same clock.
 * <p>A request due less than {@code minWakeupIntervalNanos} after the one before it waits for the next wake-up, at
 * least that interval after the last: requests closer together than the interval go out together. Requests farther
 * apart are each woken for at their own time. Each wake-up costs the client's core a few microseconds (a timer, two
 * context switches), as much as a request's own sending at 40k req/s; the lag this adds is recorded as every lag is,
 * and counted in the response time, which runs from the intended time.
 * <p>The loop ends when the schedule is done, at {@code stopAtNanos} (a client far behind does not go on sending a
 * backlog after the run), or when {@link #stop()} is called; what it never sent is counted. Until then the schedule may
 * be extended ({@link #extend}), when the run's measured window moved later.
 */
public final class PacingLoop {
    /** Told of each request as it is sent, on the loop's thread. */
    @FunctionalInterface
    public interface Sender {
        void send(long index, long intendedNanos, long sentNanos);
    }

    /**
     * @param sent              requests sent
     * @param unsent            requests of the shard's share never sent
     * @param stoppedBehind     whether the loop stopped with requests still due
     */
    public record Result(long sent, long unsent, boolean stoppedBehind) {
    }

    private volatile Schedule schedule;
    private final int shard;
    private final int shards;
    private final int maxBatch;
    private volatile long stopAtNanos;
    private final long minWakeupIntervalNanos;
    private final Ticker ticker;
    private final Sender sender;
    private volatile boolean stopRequested;
    private volatile long sentSoFar;

    public PacingLoop(Schedule schedule, int shard, int shards, int maxBatch, long minWakeupIntervalNanos, long stopAtNanos,
                      Ticker ticker, Sender sender) {
        if (shard < 0 || shard >= shards || maxBatch <= 0 || minWakeupIntervalNanos < 0) {
            throw new IllegalArgumentException("shard " + shard + " of " + shards + ", batch " + maxBatch
                    + ", wake-up interval " + minWakeupIntervalNanos + " ns");
        }
        this.minWakeupIntervalNanos = minWakeupIntervalNanos;
        this.schedule = schedule;
        this.shard = shard;
        this.shards = shards;
        this.maxBatch = maxBatch;
        this.stopAtNanos = stopAtNanos;
        this.ticker = ticker;
        this.sender = sender;
    }

    /** {@link #wakeUp()}'s answer once the loop has ended: {@link #finish()} it. */
    public static final long DONE = Long.MIN_VALUE;

    // the loop's own state, on the one thread that runs it (run(), or wakeUp() and finish())
    private long next = -1;   // the next request of the shard's share; -1: not begun
    private long sent;
    private Schedule current;
    private long total;
    private long lastIntended = Long.MIN_VALUE / 2;   // of the last request sent; none yet
    private long lastNowNanos;
    private long lastStopAtNanos;

    /** Sends on this thread until the loop ends, parking between wake-ups. */
    public Result run() {
        for (long wakeAt = wakeUp(); wakeAt != DONE; wakeAt = wakeUp()) {
            if (wakeAt <= lastNowNanos) {
                continue;   // a backlog batch sent: on at once, the clock read again by the next wake-up
            }
            long wait = wakeAt - ticker.nanoTime();
            if (wait > 0) {
                ticker.parkNanos(Math.min(wait, Math.max(1, lastStopAtNanos - lastNowNanos)));
            }
        }
        return finish();
    }

    /**
     * One wake-up, for a thread that waits on its own (a selector): sends the requests due, {@code maxBatch} at most,
     * and says when to wake next, at the earliest. A wait that ends sooner (the thread had other work) must not call
     * again before then: the interval runs from the wake-up that sent. A call that sent a full batch answers a time not
     * later than its clock read: call again at once, after other work (reading responses) if the thread has some.
     *
     * @return when to wake next, on the ticker's clock; {@link #DONE} once the loop has ended
     */
    public long wakeUp() {
        if (next < 0) {
            next = shard;
            current = this.schedule;
            total = current.total();
        }
        while (next < total && !stopRequested) {
            long now = ticker.nanoTime();
            long stopAtNanos = this.stopAtNanos;
            if (now >= stopAtNanos) {
                break;
            }
            int batch = 0;
            long intended = current.intendedNanos(next);   // read once per request: the check and the send share it
            while (batch < maxBatch && intended <= now) {
                sender.send(next, intended, ticker.nanoTime());
                lastIntended = intended;
                next += shards;
                sent++;
                batch++;
                intended = next < total ? current.intendedNanos(next) : Long.MAX_VALUE;
            }
            sentSoFar = sent;
            if (this.schedule != current) {   // extended: the requests so far keep their times, more follow
                current = this.schedule;
                total = current.total();
                intended = next < total ? current.intendedNanos(next) : Long.MAX_VALUE;
            }
            lastNowNanos = now;
            lastStopAtNanos = stopAtNanos;
            if (next >= total) {
                continue;   // the schedule is done, unless it was extended meanwhile
            }
            if (batch == maxBatch) {
                // a backlog: due at once, but the thread comes back between batches (a selector reads its responses)
                return intended <= now ? intended : now;
            }
            // only a request due less than the interval after the one before it waits for the interval: one farther apart
            // is woken for at its own time, however late this wake-up came
            return intended - lastIntended < minWakeupIntervalNanos ? Math.max(intended, now + minWakeupIntervalNanos) : intended;
        }
        return DONE;
    }

    /** Once {@link #wakeUp()} said {@link #DONE}: the loop's account. */
    public Result finish() {
        ticker.done();
        long unsent = this.schedule.countOf(shard, shards) - sent;
        return new Result(sent, unsent, unsent > 0);
    }

    /** A thread that waits on its own tells the loop before each wait, as its parking would (the stall meter counts on it). */
    public void waiting(long nanos) {
        ticker.waiting(nanos);
    }

    /** That wait ended (the thread's clock is read: lateness past the wait is a stall). */
    public void waitEnded() {
        ticker.waitEnded();
    }

    /** The thread comes back to the loop from other work, which is not the loop's stall. */
    public void resumed() {
        ticker.resumed();
    }

    /** When the loop stops sending, on the ticker's clock: a wait on its own ends by then. */
    public long stopAtNanos() {
        return stopAtNanos;
    }

    /**
     * Runs on to a longer schedule, the same one with more requests after its end, and stops at a later instant; a loop
     * that has ended already does not begin again (the caller extends only before the schedule's end).
     */
    public void extend(Schedule longer, long laterStopAtNanos) {
        Schedule current = schedule;
        if (longer.startNanos() != current.startNanos() || longer.ratePerSecond() != current.ratePerSecond()
                || longer.rampNanos() != current.rampNanos() || longer.total() < current.total()) {
            throw new IllegalArgumentException("not the same schedule made longer: " + longer + " after " + current);
        }
        schedule = longer;
        stopAtNanos = Math.max(stopAtNanos, laterStopAtNanos);
    }

    /** Ends the loop at its next wake-up. */
    public void stop() {
        stopRequested = true;
    }

    /** Requests sent so far (read from another thread; updated once per wake-up). */
    public long sentSoFar() {
        return sentSoFar;
    }
}
