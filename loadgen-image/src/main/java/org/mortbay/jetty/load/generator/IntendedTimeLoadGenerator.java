package org.mortbay.jetty.load.generator;

import java.util.concurrent.TimeUnit;

import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * jetty-load-generator's {@link LoadGenerator}, extended so that every request carries its <em>intended</em> send
 * time, which the library computes but does not expose (it stamps only the actual send time, its issue #87).
 *
 * <p>How the intended time is recovered. Without rate ramp-up, each sender thread of the library runs
 * {@code begin = nanoTime(); loop { loops++; sleep until begin + loops * ratePeriod; send }}, with
 * {@code ratePeriod = threads * 1 s / rate}, and its first loop sends nothing (it leaves the zero-iteration warm-up).
 * So the n-th request of a thread (n from 1) is intended for {@code begin + (n + 1) * ratePeriod}. Two protected
 * hooks, both called on the sender thread, give the rest:
 * <ul>
 *   <li>{@link #newHttpClient}: the thread's last HttpClient finishes starting immediately before the library reads
 *       {@code begin}; a lifecycle listener stamps that instant, which is therefore at most a few instructions
 *       <em>earlier</em> than {@code begin} (so latencies can only be overstated, by nanoseconds);</li>
 *   <li>{@link #newRequest}: called right before each send, counts the thread's requests.</li>
 * </ul>
 * The actual send time minus the intended one is the send lag; it is never negative unless this reasoning breaks
 * (a library change), which pacer's tests check by asserting that no negative lag was ever clamped.
 *
 * <p>This class lives in the library's package because {@link LoadGenerator}'s constructor is package-private.
 */
public class IntendedTimeLoadGenerator extends LoadGenerator {
    /** Told of every request just before it is sent, on the sender thread. */
    @FunctionalInterface
    public interface SendListener {
        void onSend(Request request, long intendedSendNanoTime, long actualSendNanoTime);
    }

    private static final class SenderSchedule {
        private long beginNanoTime;
        private long requestsSent;
    }

    private final ThreadLocal<SenderSchedule> schedules = ThreadLocal.withInitial(SenderSchedule::new);
    private final long ratePeriodNanos;
    private final SendListener sendListener;
    private final RequestCustomizer requestCustomizer;

    /** Adjusts each request (body, timeout) after the library built it. */
    @FunctionalInterface
    public interface RequestCustomizer {
        Request customize(Request request);
    }

    public IntendedTimeLoadGenerator(LoadGenerator.Config config, SendListener sendListener, RequestCustomizer requestCustomizer) {
        super(config);
        if (config.getRateRampUpPeriod() != 0 || config.getResourceRate() <= 0 || config.getWarmupIterationsPerThread() != 0) {
            throw new IllegalArgumentException("intended send times need a constant rate > 0, no ramp-up and no warm-up iterations");
        }
        this.ratePeriodNanos = ratePeriodNanos(config.getThreads(), config.getResourceRate());
        this.sendListener = sendListener;
        this.requestCustomizer = requestCustomizer;
    }

    /** The library's pacing interval of one sender thread, computed exactly as it does. */
    public static long ratePeriodNanos(int threads, int resourceRate) {
        return TimeUnit.SECONDS.toNanos(threads) / resourceRate;
    }

    /** The total rate the library actually offers for a requested rate (integer rounding of its period). */
    public static double offeredRatePerSecond(int threads, int resourceRate) {
        return threads * 1e9 / ratePeriodNanos(threads, resourceRate);
    }

    @Override
    protected HttpClient newHttpClient(LoadGenerator.Config config) {
        HttpClient client = super.newHttpClient(config);
        SenderSchedule schedule = schedules.get();
        client.addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarted(LifeCycle event) {
                schedule.beginNanoTime = System.nanoTime();
                schedule.requestsSent = 0;
            }
        });
        return client;
    }

    @Override
    protected Request newRequest(HttpClient client, LoadGenerator.Config config, Resource resource) {
        Request request = requestCustomizer.customize(super.newRequest(client, config, resource));
        SenderSchedule schedule = schedules.get();
        long n = ++schedule.requestsSent;
        long intended = schedule.beginNanoTime + (n + 1) * ratePeriodNanos;
        sendListener.onSend(request, intended, System.nanoTime());
        return request;
    }
}
