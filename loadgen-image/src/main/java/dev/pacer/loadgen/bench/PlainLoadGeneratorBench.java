package dev.pacer.loadgen.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.mortbay.jetty.load.generator.HTTP1ClientTransportBuilder;
import org.mortbay.jetty.load.generator.LoadGenerator;
import org.mortbay.jetty.load.generator.Resource;

/**
 * The unmodified jetty-load-generator at a fixed rate, for {@code scripts/bench-loadgen.sh}: the baseline beside
 * pacer's load generator. Prints one line: {@code requested, responses, achieved/s, cpuSeconds, cpuSecondsPer1000}.
 * CPU time is this process's user + system time during the load only (JVM start-up excluded).
 *
 * <p>Usage: {@code PlainLoadGeneratorBench HOST PORT PATH RATE SECONDS CONNECTIONS}
 */
public final class PlainLoadGeneratorBench {
    private PlainLoadGeneratorBench() {
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String path = args[2];
        int rate = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        int connections = Integer.parseInt(args[5]);
        LongAdder responses = new LongAdder();
        int threads = Math.max(1, (rate + 19_999) / 20_000);
        LoadGenerator generator = LoadGenerator.builder().scheme("http").host(host).port(port)
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
        double cpuBefore = processCpuSeconds();
        long start = System.nanoTime();
        generator.begin().get(seconds * 3L + 30, TimeUnit.SECONDS);
        double elapsed = (System.nanoTime() - start) / 1e9;
        double cpu = processCpuSeconds() - cpuBefore;
        long total = responses.sum();
        System.out.printf(Locale.ROOT, "plain-jetty-load-generator requested=%d responses=%d achieved=%.1f/s cpuSeconds=%.3f cpuSecondsPer1000=%.4f%n",
                (long) rate * seconds, total, total / elapsed, cpu, cpu * 1000 / Math.max(1, total));
    }

    /** utime + stime of this process from /proc/self/stat. */
    static double processCpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks / 100.0;
    }
}
