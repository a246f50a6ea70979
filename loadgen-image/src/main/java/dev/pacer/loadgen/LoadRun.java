package dev.pacer.loadgen;

import java.net.URI;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.pacer.agent.PeriodSampler;
import dev.pacer.contract.RunReport;
import dev.pacer.contract.RunReport.State;
import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.StringRequestContent;
import org.mortbay.jetty.load.generator.HTTP1ClientTransportBuilder;
import org.mortbay.jetty.load.generator.HTTP2ClientTransportBuilder;
import org.mortbay.jetty.load.generator.IntendedTimeLoadGenerator;
import org.mortbay.jetty.load.generator.LoadGenerator;
import org.mortbay.jetty.load.generator.Resource;

/**
 * One open-loop run of this client: waits for {@code startAt}, then offers a constant rate through
 * {@link IntendedTimeLoadGenerator} for warm-up + duration + one sample period (so that the last measured period is
 * fully loaded even when the start is late by up to a period), then drains the responses.
 *
 * <p>Every response is recorded into the {@code responseTime} sampler as completion time minus <em>intended</em>
 * send time (coordinated omission corrected), and every send into the {@code sendLag} sampler as actual minus
 * intended send time. Both samplers run on wall-clock-aligned periods for the whole life of the process; the
 * analysis cuts the measured window out of them.
 */
final class LoadRun {
    private final RunRequest spec;
    private final PeriodSampler responseTime;
    private final PeriodSampler sendLag;
    private final Clock clock;
    private final LongAdder sent = new LongAdder();
    private final LongAdder responses = new LongAdder();
    private final LongAdder measuredResponses = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder ioFailures = new LongAdder();
    private final LongAdder[] statusClasses = new LongAdder[6];
    private final AtomicLong maxInFlight = new AtomicLong();
    private final long windowStartEpochMs;
    private final long windowEndEpochMs;
    private final int senderThreads;
    private final double offeredRatePerSecond;
    private volatile CompletableFuture<Void> completion;
    private volatile String failure;
    private volatile boolean stoppedAtScheduleEnd;
    private volatile long scheduledRequests;

    LoadRun(RunRequest spec, PeriodSampler responseTime, PeriodSampler sendLag, Clock clock) {
        this.spec = spec;
        this.responseTime = responseTime;
        this.sendLag = sendLag;
        this.clock = clock;
        for (int i = 0; i < statusClasses.length; i++) {
            statusClasses[i] = new LongAdder();
        }
        this.windowStartEpochMs = spec.startAtEpochMs() + spec.warmupMs();
        this.windowEndEpochMs = windowStartEpochMs + spec.durationMs();
        this.senderThreads = senderThreads(spec);
        this.offeredRatePerSecond = IntendedTimeLoadGenerator.offeredRatePerSecond(senderThreads, spec.ratePerSecond());
    }

    /** Starts the waiting thread; the load begins at {@code startAt} (at once if that is past). */
    void start() {
        Thread.ofPlatform().daemon().name("pacer-run-starter").start(() -> {
            long waitMs = spec.startAtEpochMs() - clock.millis();
            if (waitMs > 0) {
                try {
                    Thread.sleep(waitMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            try {
                LoadGenerator generator = newGenerator();
                completion = generator.begin();
                completion.whenComplete((ignored, error) -> {
                    if (error != null && !stoppedAtScheduleEnd) {
                        failure = error.getClass().getSimpleName() + ": " + error.getMessage();
                    }
                });
                stopBehindScheduleClient(generator);
            } catch (RuntimeException e) {
                failure = e.getClass().getSimpleName() + ": " + e.getMessage();
                completion = CompletableFuture.failedFuture(e);
            }
        });
    }

    /**
     * A client that fell behind would otherwise go on sending its backlog long after the schedule ended: at the end
     * of the schedule plus one period it is interrupted, and what it never sent is reported as {@code unsent}.
     */
    private void stopBehindScheduleClient(LoadGenerator generator) {
        long stopAtEpochMs = windowEndEpochMs + 2 * responseTime.period().toMillis();
        while (!completion.isDone()) {
            long waitMs = stopAtEpochMs - clock.millis();
            if (waitMs <= 0) {
                stoppedAtScheduleEnd = true;
                generator.interrupt();
                return;
            }
            try {
                completion.get(waitMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // check the clock again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                return;
            }
        }
    }

    private LoadGenerator newGenerator() {
        URI target = URI.create(spec.targetUrl());
        long loadNanos = TimeUnit.MILLISECONDS.toNanos(spec.warmupMs() + spec.durationMs() + responseTime.period().toMillis());
        long ratePeriodNanos = IntendedTimeLoadGenerator.ratePeriodNanos(senderThreads, spec.ratePerSecond());
        int iterationsPerThread = Math.toIntExact((loadNanos + ratePeriodNanos - 1) / ratePeriodNanos);
        scheduledRequests = (long) iterationsPerThread * senderThreads;
        Resource resource = new Resource(spec.path()).method(spec.method());
        if (spec.request() != null && spec.request().headers() != null) {
            spec.request().headers().forEach(resource::requestHeader);
        }
        int connectionsPerThread = (spec.connections() + senderThreads - 1) / senderThreads;
        LoadGenerator.Builder config = LoadGenerator.builder()
                .scheme("http").host(target.getHost()).port(target.getPort() < 0 ? 80 : target.getPort())
                .httpClientTransportBuilder("h2c".equals(spec.httpVersion()) ? new HTTP2ClientTransportBuilder() : new HTTP1ClientTransportBuilder())
                .threads(senderThreads).usersPerThread(1).channelsPerUser(connectionsPerThread)
                .resourceRate(spec.ratePerSecond()).rateRampUpPeriod(0)
                .warmupIterationsPerThread(0).iterationsPerThread(iterationsPerThread)
                .resource(resource);
        String body = spec.request() == null ? null : spec.request().body();
        long timeoutMs = spec.effectiveRequestTimeoutMs();
        return new IntendedTimeLoadGenerator(config, this::onSend, request -> {
            Request customized = request.timeout(timeoutMs, TimeUnit.MILLISECONDS);
            if (body != null && !body.isEmpty()) {
                customized = customized.body(new StringRequestContent(body));
            }
            return customized;
        });
    }

    private void onSend(Request request, long intendedNanoTime, long actualNanoTime) {
        sent.increment();
        sendLag.recordNanos(actualNanoTime - intendedNanoTime);
        long inFlight = sent.sum() - responses.sum() - timeouts.sum() - ioFailures.sum();
        if (inFlight > maxInFlight.get()) {
            maxInFlight.accumulateAndGet(inFlight, Math::max);
        }
        request.onComplete(result -> onComplete(result, intendedNanoTime));
    }

    private void onComplete(Result result, long intendedNanoTime) {
        long nowNanos = System.nanoTime();
        if (result.getResponse() != null && result.getResponse().getStatus() > 0 && result.getResponseFailure() == null) {
            int status = result.getResponse().getStatus();
            statusClasses[Math.min(5, Math.max(0, status / 100))].increment();
            responses.increment();
            responseTime.recordNanos(nowNanos - intendedNanoTime);
            long nowMs = clock.millis();
            if (nowMs >= windowStartEpochMs && nowMs < windowEndEpochMs) {
                measuredResponses.increment();
            }
        } else if (result.getFailure() instanceof TimeoutException) {
            timeouts.increment();
        } else {
            ioFailures.increment();
        }
    }

    State state() {
        CompletableFuture<Void> done = completion;
        if (done != null && done.isDone()) {
            return failure == null ? State.DONE : State.FAILED;
        }
        long now = clock.millis();
        if (done == null && failure == null) {
            return now < spec.startAtEpochMs() ? State.WAITING : State.WARMUP;
        }
        return now < windowStartEpochMs ? State.WARMUP : State.MEASURING;
    }

    long errors() {
        return timeouts.sum() + ioFailures.sum() + statusClasses[4].sum() + statusClasses[5].sum();
    }

    /** {@code GET /pacer/v1/run}. */
    RunReport report() {
        State state = state();
        long now = clock.millis();
        long measuredMs = Math.max(0, Math.min(now, windowEndEpochMs) - windowStartEpochMs);
        Map<String, Long> errorsByKind = new LinkedHashMap<>();
        errorsByKind.put("timeout", timeouts.sum());
        errorsByKind.put("io", ioFailures.sum());
        errorsByKind.put("status_4xx", statusClasses[4].sum());
        errorsByKind.put("status_5xx", statusClasses[5].sum());
        Map<String, Long> classes = new LinkedHashMap<>();
        for (int i = 1; i < statusClasses.length; i++) {
            classes.put(i + "xx", statusClasses[i].sum());
        }
        long sentNow = sent.sum();
        return new RunReport(state, spec.targetUrl(), spec.ratePerSecond(), offeredRatePerSecond,
                measuredMs == 0 ? 0.0 : measuredResponses.sum() * 1000.0 / measuredMs, senderThreads, spec.connections(),
                scheduledRequests, sentNow, state == State.DONE ? Math.max(0, scheduledRequests - sentNow) : 0L,
                stoppedAtScheduleEnd, responses.sum(), measuredResponses.sum(), errors(), errorsByKind, classes,
                Math.max(0, sentNow - responses.sum() - timeouts.sum() - ioFailures.sum()), maxInFlight.get(),
                sendLag.clampedValues(), new RunReport.Window(windowStartEpochMs, windowEndEpochMs), spec.startAtEpochMs(), failure);
    }

    /** One sender thread paces at most this many requests per second by default. */
    static final int DEFAULT_RATE_PER_SENDER_THREAD = 20_000;

    /** The request's sender threads, or one per {@value #DEFAULT_RATE_PER_SENDER_THREAD} req/s, at most one per CPU. */
    static int senderThreads(RunRequest spec) {
        if (spec.senderThreads() > 0) {
            return spec.senderThreads();
        }
        int byRate = (spec.ratePerSecond() + DEFAULT_RATE_PER_SENDER_THREAD - 1) / DEFAULT_RATE_PER_SENDER_THREAD;
        return Math.max(1, Math.min(byRate, Runtime.getRuntime().availableProcessors()));
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

    double offeredRatePerSecond() {
        return state() == State.WARMUP || state() == State.MEASURING ? offeredRatePerSecond : 0;
    }
}
