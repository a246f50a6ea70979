package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client deliberately starved of its CPU: a busy loop at nice -15 shares it, which leaves the client about 3 % of it
 * (the kernel's weights: 1024 against 29154), less than half of what 4,000 req/s ask of it even on a machine twice as
 * fast as a 2-core VM, and enough to keep it reporting. At nice -20 (about 1 %) a client can be starved so far that it
 * reports no period at all, and nothing is left to judge its CPU by. The run is Invalid and the reason names the
 * client's CPU, whatever else the starved client got wrong; the same run without the loop shows a client far from
 * saturation, unless the machine is busy with other work, which the control then says.
 */
class ClientSaturationE2ETest {
    @TempDir
    Path work;

    @Test
    void aClientStarvedOfItsCpuMakesTheRunInvalidNamingIt() throws Exception {
        assertThat(new ProcessBuilder("pgrep", "-f", "LoadGeneratorAgent").start().waitFor()).as("no other client runs").isEqualTo(1);
        String spec = LocalRuns.spec("starved", "jetty12", "--mode=core", "4000", "/plaintext", "3s", "5s");
        // the client is pinned to the last CPU (the server takes the first). The loop starts once the client is warming
        // up (found through its ready file), so that it starts and takes its barrier, and it ends by itself after 12 s
        String clientCpu = Integer.toString(Runtime.getRuntime().availableProcessors() - 1);
        Thread starver = Thread.ofPlatform().start(() -> {
            try {
                waitUntilTheClientWarmsUp();
                // closed, with whatever it started, even if this thread is interrupted
                try (Processes.BusyLoops loop = Processes.busyLoops(Map.of(Integer.parseInt(clientCpu), -15), 12)) {
                    loop.waitFor();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        LocalRuns.Outcome starved = LocalRuns.run(work, "starved", spec);
        starver.join(TimeUnit.SECONDS.toMillis(30));
        RunResult result = starved.document().result();
        assertThat(starved.document().agents().get("client-0").cpuset()).as("the client's CPU").isEqualTo(clientCpu);
        assertThat(result.verdict).isEqualTo(Verdict.Invalid);
        assertThat(result.clientBound).as("the run found the client's limit, not the server's: %s", result.reasons).isTrue();
        assertThat(result.reasons).anySatisfy(reason -> assertThat(reason).contains("client-0's CPU was saturated")
                .contains("spec.clients.cpus"));
        RunResult.Footprint client = result.clients.perClient.getFirst().footprint;
        assertThat(client.saturatedPeriods).isPositive();
        assertThat(client.maxWaitPerSliceMicros).as("waiting behind the loop each time it woke").isGreaterThanOrEqualTo(1_000.0);
        assertThat(client.maxPeriodCpuDemand).isGreaterThanOrEqualTo(0.95);
        assertThat(starved.document().periods()).anySatisfy(p -> assertThat(p.clientUsage().get("client-0").cpuDemand()).isGreaterThanOrEqualTo(0.95));
        // the competitor named: the loop, at nice -15, took the client's CPU, more of it than the client had
        assertThat(client.neighbourCpuSeconds).as("other processes on the client's CPU in the window, against its own %s s", client.cpuSeconds)
                .isGreaterThan(client.cpuSeconds);
        assertThat(result.reasons).anySatisfy(reason -> assertThat(reason).contains("what else ran on its CPUs:")
                .contains("other processes ran").contains("keep other work off the clients' CPUs"));
    }

    /**
     * The control: the same run without the busy loop shows a client far from saturation. On a machine busy with other
     * work the client's CPU is not its own, and the detector rightly says so; the control then reports the machine busy
     * (the other work measured on the client's CPU just before and after the run) instead of failing.
     */
    @Test
    void theSameClientAloneIsNotSaturated() throws Exception {
        assertThat(new ProcessBuilder("pgrep", "-f", "LoadGeneratorAgent").start().waitFor()).as("no other client runs").isEqualTo(1);
        String spec = LocalRuns.spec("alone", "jetty12", "--mode=core", "4000", "/plaintext", "3s", "5s");
        int clientCpu = Runtime.getRuntime().availableProcessors() - 1;
        double busyBefore = busyShare(clientCpu, Duration.ofSeconds(1));
        LocalRuns.Outcome alone = LocalRuns.run(work, "alone", spec);
        double busyAfter = busyShare(clientCpu, Duration.ofSeconds(1));
        RunResult.Footprint unstarved = alone.document().result().clients.perClient.getFirst().footprint;
        if (unstarved.saturatedPeriods > 0) {
            assumeTrue(Math.max(busyBefore, busyAfter) < OTHER_WORK_LIMIT, String.format(Locale.ROOT, "the machine is busy: other work held "
                    + "%.0f %% of CPU %d (the client's) before the run and %.0f %% after it, so the control cannot show an unsaturated client",
                    100 * busyBefore, clientCpu, 100 * busyAfter));
        }
        assertThat(unstarved.saturatedPeriods).as("the same client without the busy loop (CPU %d %.0f %% busy before, %.0f %% after)",
                clientCpu, 100 * busyBefore, 100 * busyAfter).isZero();
        assertThat(alone.document().result().reasons).noneSatisfy(reason -> assertThat(reason).contains("saturated"));
    }

    /** The share of other work on a CPU at which the control is not conclusive. */
    private static final double OTHER_WORK_LIMIT = 0.2;

    /** How busy a CPU was over an interval, from /proc/stat: user, nice, system, irq, softirq and steal over all. */
    static double busyShare(int cpu, Duration over) throws IOException, InterruptedException {
        long[] before = cpuTimes(cpu);
        Thread.sleep(over.toMillis());
        long[] after = cpuTimes(cpu);
        long busy = 0;
        long total = 0;
        for (int i = 0; i < before.length; i++) {
            long delta = after[i] - before[i];
            total += delta;
            if (i != 3 && i != 4) {   // idle, iowait
                busy += delta;
            }
        }
        return total == 0 ? 0 : (double) busy / total;
    }

    private static long[] cpuTimes(int cpu) throws IOException {
        String line = Files.readAllLines(Path.of("/proc/stat")).stream().filter(l -> l.startsWith("cpu" + cpu + " ")).findFirst()
                .orElseThrow(() -> new IOException("no cpu" + cpu + " in /proc/stat"));
        String[] fields = line.trim().split("\\s+");
        long[] times = new long[8];
        for (int i = 0; i < times.length; i++) {
            times[i] = Long.parseLong(fields[i + 1]);
        }
        return times;
    }

    /** The client's {@code GET /pacer/v1/run} says warmup: its port from the ready file named in its environment. */
    private static void waitUntilTheClientWarmsUp() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        HttpClient http = HttpClient.newHttpClient();
        while (System.nanoTime() < deadline) {
            Process pgrep = new ProcessBuilder("pgrep", "-f", "LoadGeneratorAgent").start();
            String pid = new String(pgrep.getInputStream().readAllBytes()).trim();
            if (pgrep.waitFor() == 0 && !pid.contains("\n")) {
                String environ = Files.readString(Path.of("/proc", pid, "environ")).replace('\0', '\n');
                Optional<Path> ready = environ.lines().filter(l -> l.startsWith("PACER_READY_FILE="))
                        .map(l -> Path.of(l.substring("PACER_READY_FILE=".length()))).findFirst();
                if (ready.isPresent() && Files.exists(ready.get())) {
                    int port = new ObjectMapper().readTree(ready.get().toFile()).path("adminPort").asInt();
                    String state = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/pacer/v1/run")).build(),
                            HttpResponse.BodyHandlers.ofString()).body();
                    if (state.contains("\"warmup\"") || state.contains("\"measuring\"")) {
                        return;
                    }
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the client did not start warming up within 60 s");
    }
}
