package dev.pacer.loadgen;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.pacer.agent.PeriodSampler;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.LoadRunStatus.State;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.contract.RunRequest;
import dev.pacer.loadgen.pacing.PacingLoop;
import dev.pacer.loadgen.pacing.Schedule;
import dev.pacer.loadgen.pacing.StallWatchingTicker;
import dev.pacer.loadgen.pacing.Ticker;
import org.mortbay.jetty.load.generator.Resource;

/**
 * One open-loop run of this client, in two steps. Armed by its run request, every shard opens its connections and a
 * full collection clears the young generation; the client then says {@code armed} and waits for its start
 * ({@link #start(long)}), which the orchestrator chooses only once every client of the run is armed. A start already
 * past is refused, and a later one may replace a start that has not come: a client never begins behind its schedule
 * because it was still connecting. A run posted with its {@code startAt} is armed and started at once, and fails if
 * arming outlasts the start. From {@code startAt}
 * the shards' {@link PacingLoop}s send the one schedule {@code startAt + n × 1 s / rate} (pacer's own: every request
 * carries its intended send time from the loop itself; with {@code rampUpMs}, the rate first grows linearly from 0
 * within the warm-up, {@link Schedule}) for warm-up + duration + one sample period, so that the last
 * measured period is fully loaded even when the start is late by up to a period; then the responses drain.
 *
 * <p>Every response is recorded into {@code responseTime} as completion minus <em>intended</em> send time (coordinated
 * omission corrected) and into {@code responseTimeUncorrected} as completion minus the time it went to the wire (what
 * a tool without the correction reports); every request, as the pacing loop hands it to the client, into
 * {@code sendLag} as that time minus its intended time: how late the client itself was, whatever the server does.
 * Requests that never went to the wire (left in the client's queue at the stop, or refused by a full queue) are
 * counted as never sent. The samplers
 * run on wall-clock-aligned periods for the whole life of the process; the analysis cuts the measured window out.
 * A client far behind its schedule stops two periods after the window and reports what it never sent.
 *
 * <p>The orchestrator may move the window later while the load runs ({@link #moveWindow(long)}): a client still behind
 * its schedule when the warm-up was to end would carry its backlog into the window. The schedule then runs on to the new
 * window's end, the requests already scheduled keeping their times; what this client reports as its backlog now
 * ({@code lateRequests}) is what the orchestrator judges by.
 */
final class LoadRun {
    /** Answers of {@link #start(long)}. */
    enum StartAnswer { ACCEPTED, PASSED, ALREADY_STARTED }

    /** Answer of {@link #moveWindow(long)}: whether it moved, and why not. */
    record WindowAnswer(boolean moved, String refusal) {
    }
    /** One shard paces at most this many requests per second by default. */
    static final int DEFAULT_RATE_PER_SHARD = 50_000;
    /** Requests one wake-up sends at most before it looks at the clock again. */
    static final int MAX_BATCH = 256;
    /**
     * From this wake-up interval on, a shard's selector thread runs its pacing loop (one thread sends and
     * reads, as wrk2's does): its select waits in whole milliseconds, so a wake-up may come up to 1 ms late, within
     * such an interval. Below it, a pacing thread of its own parks to the microsecond.
     */
    static final long SELECTOR_PACING_MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long CONNECT_TIMEOUT_MS = 10_000;

    private final RunRequest spec;
    private final PeriodSampler responseTime;
    private final PeriodSampler responseTimeUncorrected;
    private final PeriodSampler sendLag;
    private final PeriodSampler handshake;
    private final Clock clock;
    private final StallWatchingTicker.Watch stalls;
    private final LongAdder begun = new LongAdder();
    private final LongAdder resent = new LongAdder();
    private final LongAdder finishedOnTheWire = new LongAdder();
    private final LongAdder refusedByQueue = new LongAdder();
    private final LongAdder responses = new LongAdder();
    private final LongAdder measuredResponses = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder ioFailures = new LongAdder();
    private final FailureCauses failureCauses = new FailureCauses();
    private final LongAdder[] statusClasses = new LongAdder[6];
    private final AtomicLong maxInFlight = new AtomicLong();
    private final Object startLock = new Object();
    private volatile long startAtEpochMs;   // 0 until given; fixed once the load has begun
    private volatile long windowStartEpochMs;
    private volatile long windowEndEpochMs;
    private volatile long plannedWindowStartEpochMs;
    private volatile long stopAtNanos;
    private volatile boolean armed;
    private final int shards;
    private final List<PacingLoop> loops = new CopyOnWriteArrayList<>();   // read by reports while filled
    private volatile boolean loadStarted;
    private volatile boolean done;
    private volatile String failure;
    private volatile boolean stoppedBehindSchedule;
    private volatile long scheduledRequests;
    private volatile long sentAtEnd = -1;
    private volatile long unsent;
    private volatile Schedule schedule;   // once the load is about to start

    /**
     * @param handshake times each TLS handshake of an https run
     * @param stalls    the client's stall meter, which each pacing thread's clock reads stand in for while it wakes often
     */
    LoadRun(RunRequest spec, PeriodSampler responseTime, PeriodSampler responseTimeUncorrected, PeriodSampler sendLag,
            PeriodSampler handshake, Clock clock, StallWatchingTicker.Watch stalls) {
        this.spec = spec;
        this.stalls = stalls;
        this.handshake = handshake;
        this.responseTime = responseTime;
        this.responseTimeUncorrected = responseTimeUncorrected;
        this.sendLag = sendLag;
        this.clock = clock;
        for (int i = 0; i < statusClasses.length; i++) {
            statusClasses[i] = new LongAdder();
        }
        this.shards = shards(spec);
        if (spec.startAtEpochMs() > 0) {
            setStart(spec.startAtEpochMs());
        }
    }

    /** Starts the run's thread: arm (connect, collect), wait for {@code startAt}, send, drain. */
    void arm() {
        Thread.ofPlatform().daemon().name("pacer-run").start(this::runAll);
    }

    /**
     * The instant the load starts ({@code POST /pacer/v1/run/start}): refused when it has passed already, or when the
     * load has begun at another instant; until the load begins, a later start replaces an earlier one.
     */
    StartAnswer start(long requestedStartAtEpochMs) {
        synchronized (startLock) {
            if (loadStarted || done) {
                return loadStarted && requestedStartAtEpochMs == startAtEpochMs ? StartAnswer.ACCEPTED : StartAnswer.ALREADY_STARTED;
            }
            if (requestedStartAtEpochMs <= clock.millis()) {
                return StartAnswer.PASSED;
            }
            setStart(requestedStartAtEpochMs);
            startLock.notifyAll();
            return StartAnswer.ACCEPTED;
        }
    }

    private void setStart(long epochMs) {
        startAtEpochMs = epochMs;
        windowStartEpochMs = epochMs + spec.warmupMs();
        windowEndEpochMs = windowStartEpochMs + spec.durationMs();
        plannedWindowStartEpochMs = windowStartEpochMs;
    }

    /**
     * {@code POST /pacer/v1/run/window}: the measured window starts at {@code newStartEpochMs} instead, with the same
     * duration, and the schedule runs on to its end. Only later than the window in force, only a start still to come, and
     * only while the load runs and its window has not ended: the responses counted in the window so far all came before
     * the new start, so the count begins again.
     */
    WindowAnswer moveWindow(long newStartEpochMs) {
        synchronized (startLock) {
            Schedule current = schedule;
            long now = clock.millis();
            if (!loadStarted || done || current == null) {
                return new WindowAnswer(false, "the load is not under way (" + state().json() + ")");
            }
            if (newStartEpochMs <= windowStartEpochMs) {
                return new WindowAnswer(false, "the window starts at " + Instant.ofEpochMilli(windowStartEpochMs) + " already: it moves only later");
            }
            if (newStartEpochMs <= now || now >= windowEndEpochMs) {
                return new WindowAnswer(false, "the start " + Instant.ofEpochMilli(newStartEpochMs) + " had passed, or the window ended, by "
                        + Instant.ofEpochMilli(now));
            }
            long periodMs = responseTime.period().toMillis();
            windowStartEpochMs = newStartEpochMs;
            windowEndEpochMs = newStartEpochMs + spec.durationMs();
            measuredResponses.reset();
            Schedule longer = current.extendedTo(TimeUnit.MILLISECONDS.toNanos(windowEndEpochMs + periodMs - startAtEpochMs));
            long laterStop = current.startNanos() + TimeUnit.MILLISECONDS.toNanos(windowEndEpochMs + 2 * periodMs - startAtEpochMs);
            schedule = longer;
            scheduledRequests = longer.total();
            stopAtNanos = laterStop;
            loops.forEach(loop -> loop.extend(longer, laterStop));
            return new WindowAnswer(true, null);
        }
    }

    /** Requests due by now that have not gone to the wire: the backlog (those the client's full queue refused are lost, not late). */
    long lateRequests() {
        Schedule current = schedule;
        if (current == null || !loadStarted || done) {
            return 0;
        }
        long due = current.dueBy(System.nanoTime());
        return Math.max(0, due - begun.sum() - refusedByQueue.sum());
    }

    private void runAll() {
        List<Shard> clients = new ArrayList<>();
        try {
            Resource resource = Shard.resource(spec);
            // the client's queue holds 2 s of load (a server stalled that long still gets every request, late); beyond, an
            // overloaded client refuses requests, and they count as never sent
            int maxQueued = (int) Math.min(1_000_000, Math.max(1024, 2L * spec.ratePerSecond()));
            for (int k = 0; k < shards; k++) {
                int connections = spec.connections() / shards + (k < spec.connections() % shards ? 1 : 0);
                Shard shard = Shard.of(k, spec, resource, Math.max(1, connections), maxQueued, new Shard.Completions() {
                    @Override
                    public void begun() {
                        begun.increment();
                    }

                    @Override
                    public void resent() {
                        resent.increment();
                    }

                    @Override
                    public void sendLag(long lagNanos) {
                        sendLag.recordNanos(lagNanos);
                    }

                    @Override
                    public void completed(int status, Throwable failure, long intendedNanos, long begunNanos) {
                        LoadRun.this.completed(status, failure, intendedNanos, begunNanos);
                    }

                    @Override
                    public void handshake(long nanos) {
                        handshake.recordNanos(nanos);
                    }
                });
                clients.add(shard);
                shard.connect(CONNECT_TIMEOUT_MS);
            }
        } catch (Exception | LinkageError e) {
            String tls = spec.https() ? ClientTls.explain(e, spec.targetUrl()) : null;
            fail("cannot connect to " + spec.targetUrl() + ": " + (tls != null ? tls : FailureCauses.describeFully(e)));
            closeAll(clients);
            return;
        }
        // Everything this client keeps for the run (connections, buffers, histograms) is allocated now. One full
        // collection before the load moves it out of the young generation: otherwise the first young collection in the
        // window copies it all, a 40 ms stall at 500 req/s (SerialGC, measured), charged to the server's latency.
        System.gc();
        long armedAtEpochMs = clock.millis();
        armed = true;
        try {
            if (!awaitStart(armedAtEpochMs)) {
                return;
            }
            sendAndDrain(clients);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        } catch (RuntimeException | LinkageError e) {
            fail(FailureCauses.describeFully(e));
        } finally {
            closeAll(clients);
            done = true;
        }
    }

    /**
     * Waits for the start, which may be replaced until it comes, and fixes it; false, with the run failed, when the start
     * came before this client was armed (a run posted with its {@code startAt}): its load would begin with a backlog.
     */
    private boolean awaitStart(long armedAtEpochMs) throws InterruptedException {
        synchronized (startLock) {
            while (true) {
                long startAt = startAtEpochMs;
                if (startAt == 0) {
                    startLock.wait();
                    continue;
                }
                if (armedAtEpochMs > startAt) {
                    fail("armed " + (armedAtEpochMs - startAt) + " ms after its startAt " + Instant.ofEpochMilli(startAt)
                            + ": the load would have begun with a backlog; arm first (startAtEpochMs 0), then POST "
                            + AgentContract.RUN_START + " once armed");
                    return false;
                }
                long leftMs = startAt - clock.millis();
                if (leftMs <= 0) {
                    loadStarted = true;   // fixed: a later start is refused from now on
                    return true;
                }
                startLock.wait(leftMs);
            }
        }
    }

    private void sendAndDrain(List<Shard> clients) throws InterruptedException {
        long periodMs = responseTime.period().toMillis();
        // the schedule's origin on the monotonic clock: startAt read against the wall clock once, back to back
        Instant wall = clock.instant();
        long nano = System.nanoTime();
        long startNanos = nano + TimeUnit.MILLISECONDS.toNanos(startAtEpochMs) - (wall.getEpochSecond() * 1_000_000_000L + wall.getNano());
        synchronized (startLock) {
            Schedule schedule = Schedule.covering(startNanos, spec.ratePerSecond(),
                    TimeUnit.MILLISECONDS.toNanos(spec.warmupMs() + spec.durationMs() + periodMs), TimeUnit.MILLISECONDS.toNanos(spec.rampUpMs()));
            this.schedule = schedule;
            scheduledRequests = schedule.total();
            stopAtNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(windowEndEpochMs + 2 * periodMs - startAtEpochMs);
        }
        List<PacingLoop> shardLoops = new ArrayList<>();
        for (int k = 0; k < shards; k++) {
            Shard shard = clients.get(k);
            PacingLoop loop = new PacingLoop(this.schedule, k, shards, MAX_BATCH, spec.minWakeupIntervalNanos(), stopAtNanos,
                    new StallWatchingTicker(Ticker.SYSTEM, stalls, spec.minWakeupIntervalNanos()), (n, intended, sentAt) -> {
                // a request taken records its lag as it goes to the wire (Shard.Completions#sendLag)
                if (!shard.trySend(intended, sentAt)) {
                    sendLag.recordNanos(sentAt - intended);
                    refusedByQueue.increment();   // the client's queue is full: never sent, counted in unsent
                }
            });
            synchronized (startLock) {   // a window moved meanwhile extends every loop, this one too
                loops.add(loop);
                loop.extend(this.schedule, stopAtNanos);
            }
            shardLoops.add(loop);
        }
        long waitNanos = startNanos - System.nanoTime();
        if (waitNanos > 0) {
            TimeUnit.NANOSECONDS.sleep(waitNanos);
        }
        // each loop on its shard's selector thread from a 1 ms interval, when the shard has one to pace on;
        // else on a thread of its own
        boolean paceOnSelectors = spec.minWakeupIntervalNanos() >= SELECTOR_PACING_MIN_INTERVAL_NANOS;
        List<CompletableFuture<PacingLoop.Result>> pacing = new ArrayList<>();
        for (int k = 0; k < shards; k++) {
            PacingLoop loop = shardLoops.get(k);
            Optional<CompletableFuture<PacingLoop.Result>> onSelector = paceOnSelectors ? clients.get(k).paceOnSelector(loop) : Optional.empty();
            pacing.add(onSelector.isPresent() ? onSelector.get() : onThreadOfItsOwn(k, loop));
        }
        CompletableFuture<Void> allPaced = CompletableFuture.allOf(pacing.toArray(CompletableFuture[]::new));
        while (!allPaced.isDone()) {
            try {
                allPaced.get(Math.max(1, periodMs / 4), TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillSending) {
                // tracked below, then waited for again
            } catch (ExecutionException failed) {
                // ended: its failure is told below
            }
            trackInFlight();
        }
        List<PacingLoop.Result> results = new ArrayList<>();
        for (CompletableFuture<PacingLoop.Result> result : pacing) {
            try {
                results.add(result.get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("a pacing loop failed: " + FailureCauses.describeFully(e), e);
            }
        }
        long handedOff = results.stream().mapToLong(PacingLoop.Result::sent).sum();
        sentAtEnd = handedOff;
        // wait for the requests the client put on the wire; what it still holds in its queue after the stop never
        // reached the server and is counted as never sent (waiting for an overloaded client's queue would take long)
        long stopWait = stopAtNanos - System.nanoTime();
        while (stopWait > 0 && finished() < handedOff) {
            TimeUnit.NANOSECONDS.sleep(Math.min(stopWait, TimeUnit.MILLISECONDS.toNanos(10)));
            stopWait = stopAtNanos - System.nanoTime();
        }
        long drainUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(spec.effectiveRequestTimeoutMs() + 2_000);
        long onTheWire = begun.sum();
        while (finishedOnTheWire.sum() < onTheWire && finished() < handedOff && System.nanoTime() < drainUntil) {
            Thread.sleep(10);
            onTheWire = begun.sum();
        }
        unsent = scheduledRequests - onTheWire;
        stoppedBehindSchedule = unsent > 0;
    }

    private void completed(int status, Throwable failure, long intendedNanos, long begunNanos) {
        long nowNanos = System.nanoTime();
        if (begunNanos != 0) {
            finishedOnTheWire.increment();
        }
        if (status > 0 && failure == null) {
            statusClasses[Math.min(5, Math.max(0, status / 100))].increment();
            responses.increment();
            responseTime.recordNanos(nowNanos - intendedNanos);
            responseTimeUncorrected.recordNanos(nowNanos - begunNanos);
            long nowMs = clock.millis();
            if (nowMs >= windowStartEpochMs && nowMs < windowEndEpochMs) {
                measuredResponses.increment();
            }
        } else if (begunNanos == 0 && failure instanceof RejectedExecutionException) {
            refusedByQueue.increment();   // the client's queue was full: never sent, counted in unsent
        } else if (failure instanceof TimeoutException) {
            timeouts.increment();
            failureCauses.count(failure);
        } else {
            ioFailures.increment();
            failureCauses.count(failure);
        }
    }

    private long finished() {
        return responses.sum() + timeouts.sum() + ioFailures.sum() + refusedByQueue.sum();
    }

    /** Requests the pacing loops handed to the client so far. */
    private long handedOff() {
        long sent = sentAtEnd;
        return sent >= 0 ? sent : loops.stream().mapToLong(PacingLoop::sentSoFar).sum();
    }

    /** A loop on a platform thread of its own, which parks between its wake-ups. */
    private static CompletableFuture<PacingLoop.Result> onThreadOfItsOwn(int shard, PacingLoop loop) {
        CompletableFuture<PacingLoop.Result> result = new CompletableFuture<>();
        Thread.ofPlatform().name("pacer-pacing-" + shard).start(() -> {
            try {
                result.complete(loop.run());
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    private void trackInFlight() {
        maxInFlight.accumulateAndGet(handedOff() - finished(), Math::max);
    }

    private void fail(String why) {
        failure = why;
        done = true;
    }

    private static void closeAll(List<Shard> clients) {
        clients.forEach(Shard::closeInBackground);
    }

    State state() {
        if (done) {
            return failure == null ? State.DONE : State.FAILED;
        }
        if (!armed) {
            return State.ARMING;
        }
        if (startAtEpochMs == 0) {
            return State.ARMED;
        }
        if (!loadStarted) {
            return State.WAITING;
        }
        return clock.millis() < windowStartEpochMs ? State.WARMUP : State.MEASURING;
    }

    long errors() {
        return timeouts.sum() + ioFailures.sum() + statusClasses[4].sum() + statusClasses[5].sum();
    }

    /** {@code GET /pacer/v1/run}. */
    LoadRunStatus status() {
        State state = state();
        long now = clock.millis();
        long startAt = startAtEpochMs;
        long measuredMs = startAt == 0 ? 0 : Math.max(0, Math.min(now, windowEndEpochMs) - windowStartEpochMs);
        Map<String, Long> errorsByKind = new LinkedHashMap<>();
        errorsByKind.put("timeout", timeouts.sum());
        errorsByKind.put("io", ioFailures.sum());
        errorsByKind.put("status_4xx", statusClasses[4].sum());
        errorsByKind.put("status_5xx", statusClasses[5].sum());
        Map<String, Long> classes = new LinkedHashMap<>();
        for (int i = 1; i < statusClasses.length; i++) {
            classes.put(i + "xx", statusClasses[i].sum());
        }
        double offered = sending(state) ? offeredRatePerSecond() : spec.ratePerSecond();
        return new LoadRunStatus(state, spec.targetUrl(), spec.ratePerSecond(), offered,
                measuredMs == 0 ? 0.0 : measuredResponses.sum() * 1000.0 / measuredMs, shards, spec.connections(),
                scheduledRequests, begun.sum(), state == State.DONE ? unsent : 0L,
                stoppedBehindSchedule, responses.sum(), measuredResponses.sum(), errors(), errorsByKind, classes,
                Math.max(0, handedOff() - finished()), maxInFlight.get(),
                sendLag.clampedValues(), startAt == 0 ? null : new LoadRunStatus.Window(windowStartEpochMs, windowEndEpochMs),
                startAt == 0 ? null : startAt, failure, lateRequests(), startAt == 0 ? null : windowStartEpochMs - plannedWindowStartEpochMs,
                resent.sum(), failureCauses.byCount());
    }

    /** The request's shards ({@code senderThreads}), or one per {@value #DEFAULT_RATE_PER_SHARD} req/s, at most one per CPU. */
    static int shards(RunRequest spec) {
        if (spec.senderThreads() > 0) {
            return Math.min(spec.senderThreads(), Math.max(1, spec.connections()));
        }
        int byRate = (spec.ratePerSecond() + DEFAULT_RATE_PER_SHARD - 1) / DEFAULT_RATE_PER_SHARD;
        return Math.max(1, Math.min(Math.min(byRate, Runtime.getRuntime().availableProcessors()), spec.connections()));
    }

    long errorsOfKind(String kind) {
        return switch (kind) {
            case "timeout" -> timeouts.sum();
            case "io" -> ioFailures.sum();
            case "status_4xx" -> statusClasses[4].sum();
            case "status_5xx" -> statusClasses[5].sum();
            default -> 0;
        };
    }

    /** The schedule is sending: warming up or measuring. */
    private static boolean sending(State state) {
        return state == State.WARMUP || state == State.MEASURING;
    }

    /** The rate the schedule offers now: growing during a ramp, then the rate asked for. */
    double offeredRatePerSecond() {
        State state = state();
        Schedule offered = schedule;
        if (offered == null || !sending(state)) {
            return 0;
        }
        return offered.rateAt(System.nanoTime() - offered.startNanos());
    }
}
