package dev.pacer.agent.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

import dev.pacer.agent.PeriodSampler;

/**
 * How many values per second the request path's recording takes ({@code System.nanoTime()} twice plus
 * {@link PeriodSampler#recordNanos}) with THREADS threads recording at once, for SECONDS, periods closing every second
 * meanwhile. A benchmark that prints a figure (scripts/bench-sampler.sh), not a test.
 *
 * <p>Usage: {@code SamplerThroughput THREADS SECONDS}
 */
public final class SamplerThroughput {
    private SamplerThroughput() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long seconds = Long.parseLong(args[1]);
        try (PeriodSampler sampler = PeriodSampler.builder("bench").period(Duration.ofSeconds(1)).start()) {
            LongAdder recorded = new LongAdder();
            CountDownLatch done = new CountDownLatch(threads);
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofPlatform().start(() -> {
                    long count = 0;
                    long now = System.nanoTime();
                    while (now < end) {
                        long begin = System.nanoTime();
                        sampler.recordNanos(System.nanoTime() - begin + 25_000);
                        count++;
                        if ((count & 1023) == 0) {
                            now = System.nanoTime();
                        }
                    }
                    recorded.add(count);
                    done.countDown();
                }));
            }
            done.await();
            System.out.printf(Locale.ROOT, "threads=%d seconds=%d recorded=%d rate=%.1f M values/s clamped=%d%n",
                    threads, seconds, recorded.sum(), recorded.sum() / (double) seconds / 1e6, sampler.clampedValues());
        }
    }
}
