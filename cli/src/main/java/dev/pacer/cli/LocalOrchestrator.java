package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.contract.CpuList;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.protocol.Decision;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.protocol.RunDriver;
import dev.pacer.engine.protocol.RunProtocol;
import dev.pacer.engine.report.ResultDocument;

/**
 * Runs a BenchmarkRun on this machine: the engine's run protocol ({@link RunProtocol}) stepped by {@link RunDriver}
 * on processes ({@link LocalEffects}, {@link LocalObservations}) instead of pods, with a progress line. Every started process is stopped at
 * the end, on failure and on Ctrl-C (a shutdown hook).
 */
public final class LocalOrchestrator {
    /** How often the processes are looked at while they start, and while the load runs (the progress line). */
    static final Duration STARTING_INTERVAL = Duration.ofMillis(100);
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(1);
    static final Duration PLAIN_PROGRESS_INTERVAL = Duration.ofSeconds(5);

    private final PrintStream out;
    private final boolean terminal;
    private final Clock clock = Clock.systemUTC();
    private volatile LocalProcessTable processes;
    private final Thread shutdownHook = new Thread(this::stopAll, "pacer-stop-processes");

    public LocalOrchestrator(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** The outcome of a local run. */
    public record LocalRun(ResultDocument document, Path directory, List<Long> pids) {
    }

    public LocalRun run(BenchmarkRun run, RunPlan plan, Path directory, Integer serverPort) throws IOException, InterruptedException {
        return run(run, plan, directory, serverPort, Path.of("").toAbsolutePath());
    }

    /** @param specDirectory where the spec is: {@code ${SPEC_DIR}} of a server command */
    public LocalRun run(BenchmarkRun run, RunPlan planned, Path directory, Integer serverPort, Path specDirectory)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        LocalTls.Material tls = planned.tls() == null ? null : LocalTls.prepare(planned.tls(), directory, specDirectory);
        RunPlan plan = tls == null ? planned : planned.withClientTrust(tls.trustedPem(), null, null);
        LocalApps.App serverApp = plan.server().command() != null ? null : LocalApps.serverFor(plan.server().image()).orElseThrow();
        List<String> notes = new ArrayList<>();
        CpuLayout layout = CpuLayout.plan(CpuLayout.availableCpus(), Math.max(1, (int) Math.ceil(plan.server().cpuMillis() / 1000.0)),
                plan.clients().stream().map(RunPlan.ClientRole::name).toList(),
                Math.max(1, (int) Math.ceil(plan.clients().getFirst().cpuMillis() / 1000.0)),
                plan.placement().server().pinCpus(), plan.placement().clients().pinCpus(),
                plan.server().measure().probe());
        out.println(layout.describe());
        for (String warning : layout.warnings()) {
            out.println("warning: " + warning);
            notes.add(warning);
        }
        processes = new LocalProcessTable(layout);
        LocalEffects effects = new LocalEffects(plan, processes, serverApp, serverPort, directory, specDirectory, tls, notes, this::println);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            if (layout.selfCpus() != null) {
                pinSelf(layout.selfCpus(), notes);
            }
            BenchmarkRunStatus status = new BenchmarkRunStatus();
            long lastPlain = 0;
            while (true) {
                Decision decision;
                try {
                    decision = RunDriver.drive(plan, status, new LocalObservations(plan, processes, serverApp), effects, clock);
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
                status = decision.status();
                if (decision.finished()) {
                    break;
                }
                if (status.progress != null && (status.phase == Phase.WarmingUp || status.phase == Phase.Measuring)) {
                    long now = clock.millis();
                    if (terminal) {
                        out.print("\r" + progressLine(status) + "   ");
                        out.flush();
                    } else if (now - lastPlain >= PLAIN_PROGRESS_INTERVAL.toMillis()) {
                        out.println(progressLine(status));
                        lastPlain = now;
                    }
                }
                Duration cap = status.phase == Phase.Pending || status.phase == Phase.Starting ? STARTING_INTERVAL : PROGRESS_INTERVAL;
                Duration wait = decision.recheckAfter() == null || decision.recheckAfter().compareTo(cap) > 0 ? cap : decision.recheckAfter();
                Thread.sleep(wait.toMillis());
            }
            clearLine();
            if (status.phase == Phase.Failed) {
                throw new IOException(RunConditions.find(status.conditions, RunConditions.FAILED).getMessage());
            }
            ResultDocument document = effects.published().orElseThrow(() -> new IOException("the run ended without a result"));
            return new LocalRun(document, directory, processes.pids());
        } finally {
            clearLine();
            stopAll();
            LocalTls.forget(tls);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it stops the processes
            }
            if (layout.selfCpus() != null) {   // last: the next run of a suite plans from every CPU again
                unpinSelf(layout.available());
            }
        }
    }

    private void unpinSelf(List<Integer> cpus) {
        try {
            pinSelf(cpus, new ArrayList<>());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String progressLine(BenchmarkRunStatus status) {
        BenchmarkRunStatus.Progress p = status.progress;
        String serverP99 = p.serverLastPeriodP99Micros == null ? "–" : String.format(Locale.ROOT, "%.3f ms", p.serverLastPeriodP99Micros / 1000.0);
        return String.format(Locale.ROOT, "%-10s %5.1f/%.0f s  offered %,.0f req/s  achieved %,.0f req/s  server p99 (last period) %s",
                status.phase, p.elapsedSeconds, p.totalSeconds, p.offeredRate, p.achievedRate, serverP99);
    }

    /** A line, printed over the progress line. */
    private void println(String line) {
        clearLine();
        out.println(line);
    }

    private void clearLine() {
        if (terminal) {
            out.print("\r\033[K");
            out.flush();
        }
    }

    void stopAll() {
        LocalProcessTable started = processes;
        if (started != null) {
            started.stopAll();
        }
    }

    /**
     * Moves every thread of this JVM onto these CPUs ({@code taskset -a -p}); the threads it starts later inherit them.
     * taskset stops at a thread that ended while it walked them, so it is tried again. Where it still fails, the run
     * goes on where pacer was, said in the output (and the run's notes).
     */
    private void pinSelf(List<Integer> cpus, List<String> notes) throws InterruptedException {
        String list = CpuList.format(cpus);
        String problem = null;
        for (int attempt = 0; attempt < PIN_ATTEMPTS; attempt++) {
            try {
                Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", list, Long.toString(ProcessHandle.current().pid()))
                        .redirectErrorStream(true).start();
                String output = new String(taskset.getInputStream().readAllBytes()).trim();
                problem = taskset.waitFor() == 0 ? null : output;
            } catch (IOException e) {
                problem = e.getMessage();
            }
            if (problem == null) {
                return;
            }
        }
        String warning = "pacer's own process could not move all its threads to CPUs " + list + " (taskset: " + problem + ")";
        out.println("warning: " + warning);
        notes.add(warning);
    }

    private static final int PIN_ATTEMPTS = 3;

}
