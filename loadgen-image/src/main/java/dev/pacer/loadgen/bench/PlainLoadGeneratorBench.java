package dev.pacer.loadgen.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.mortbay.jetty.load.generator.HTTP1ClientTransportBuilder;
import org.mortbay.jetty.load.generator.LoadGenerator;
import org.mortbay.jetty.load.generator.Resource;

/**
 * The unmodified jetty-load-generator at a fixed rate, for {@code scripts/bench-loadgen.sh}: the baseline beside
 * pacer's load generator. Prints one line: {@code requested, responses, achieved/s, cpuSeconds, cpuSecondsPer1000}.
 * CPU time is this process's user + system time during the measured load only: a first generator runs
 * {@code WARMUP_SECONDS} at the same rate so that the JIT has compiled the hot paths, then the measured one runs.
 * The achieved rate counts the responses completed within {@code SECONDS} of the measured generator's start, as
 * pacer's load generator counts its window (a backlog drained afterwards does not count); the p99 is of those
 * responses, from their actual send time (the library has no intended time).
 *
 * <p>Usage: {@code PlainLoadGeneratorBench HOST PORT PATH RATE SECONDS CONNECTIONS WARMUP_SECONDS}
 */
public final class PlainLoadGeneratorBench {
    private PlainLoadGeneratorBench() {
    }

    public static void main(String[] args) throws Exception {
        try {
            measure(args);
        } finally {
            System.exit(0);   // the library's sender threads outlive a schedule it fell behind
        }
    }

    private static void measure(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String path = args[2];
        int rate = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        int connections = Integer.parseInt(args[5]);
        int warmupSeconds = Integer.parseInt(args[6]);
        if (warmupSeconds > 0) {
            newGenerator(host, port, path, rate, warmupSeconds, connections, new LongAdder()).begin().get(warmupSeconds * 3L + 30, TimeUnit.SECONDS);
        }
        LongAdder responses = new LongAdder();
        LongAdder inWindow = new LongAdder();
        long[] windowEndNanos = {Long.MAX_VALUE};
        LoadGenerator generator = newGenerator(host, port, path, rate, seconds, connections, responses);
        Recorder latencies = new Recorder(3);
        generator.getConfig().getResourceListeners().add((Resource.NodeListener) info -> {
            if (info.getStatus() == 200 && info.getResponseTime() <= windowEndNanos[0]) {
                inWindow.increment();
                latencies.recordValue(Math.max(0, info.getResponseTime() - info.getRequestTime()));
            }
        });
        double cpuBefore = processCpuSeconds();
        long start = System.nanoTime();
        windowEndNanos[0] = start + TimeUnit.SECONDS.toNanos(seconds);
        generator.begin().get(seconds * 3L + 30, TimeUnit.SECONDS);
        double cpu = processCpuSeconds() - cpuBefore;
        long total = responses.sum();
        Histogram measured = latencies.getIntervalHistogram();
        System.out.printf(Locale.ROOT, "plain-jetty-load-generator requested=%d responses=%d achieved=%.1f/s cpuSeconds=%.3f cpuSecondsPer1000=%.4f p99Ms=%.3f%n",
                (long) rate * seconds, total, inWindow.sum() / (double) seconds, cpu, cpu * 1000 / Math.max(1, total),
                measured.getTotalCount() == 0 ? 0 : measured.getValueAtPercentile(99) / 1e6);
    }

    private static LoadGenerator newGenerator(String host, int port, String path, int rate, int seconds, int connections,
                                              LongAdder responses) {
        int threads = Math.max(1, (rate + 19_999) / 20_000);
        return LoadGenerator.builder().scheme("http").host(host).port(port)
                .httpClientTransportBuilder(new HTTP1ClientTransportBuilder())
                .threads(threads).usersPerThread(1).channelsPerUser((connections + threads - 1) / threads)
                .resourceRate(rate).iterationsPerThread(rate / threads * seconds)
                .resource(new Resource(path))
                .resourceListener((Resource.NodeListener) info -> {
                    if (info.getStatus() == 200) {
                        responses.increment();
                    }
                })
                .build();
    }

    /** utime + stime of this process from /proc/self/stat. */
    static double processCpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks / 100.0;
    }
}
