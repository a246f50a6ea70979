package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.pacer.engine.agents.MetricsText;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunSpec;
import dev.pacer.api.Phase;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.report.HtmlReport;
import dev.pacer.engine.report.ResultDocument;

/**
 * Runs a BenchmarkRun on this machine: the engine's steps, with processes pinned by taskset instead of pods.
 * plan → start the server, wait for its agent → start the clients, wait for theirs → post one {@code startAt} to
 * every client → follow progress → collect → analyse → write the results directory → stop every process (also on
 * failure and on Ctrl-C, through a shutdown hook).
 */
public final class LocalOrchestrator {
    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    static final Duration START_LEAD = Duration.ofSeconds(2);
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(1);
    static final Duration PLAIN_PROGRESS_INTERVAL = Duration.ofSeconds(5);

    private final PrintStream out;
    private final boolean terminal;
    private final List<ManagedProcess> processes = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::stopAll, "pacer-stop-processes");

    public LocalOrchestrator(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** The outcome of a local run. */
    public record LocalRun(ResultDocument document, Path directory, List<Long> pids) {
    }

    public LocalRun run(BenchmarkRun run, RunPlan plan, Path directory, Integer serverPort) throws IOException, InterruptedException {
        LocalApps.App serverApp = LocalApps.serverFor(plan.server().image()).orElseThrow();
        BenchmarkRunSpec spec = run.getSpec();
        List<String> notes = new ArrayList<>();
        List<Integer> available = CpuLayout.availableCpus();
        boolean pin = spec.placement == null || spec.placement.pinCpus == null || spec.placement.pinCpus;
        CpuLayout layout = CpuLayout.plan(available, Math.max(1, (int) Math.ceil(plan.server().cpuMillis() / 1000.0)),
                plan.clients().stream().map(RunPlan.ClientRole::name).toList(),
                Math.max(1, (int) Math.ceil(plan.clients().getFirst().cpuMillis() / 1000.0)), pin);
        for (String warning : layout.warnings()) {
            out.println("warning: " + warning);
            notes.add(warning);
        }
        Files.createDirectories(directory);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            Map<String, String> env = Map.of("PACER_SAMPLE_PERIOD_MS", Long.toString(plan.samplePeriod().toMillis()));
            progress(Phase.Starting, "starting " + serverApp.name() + " on CPUs " + cpusText(layout, "server"));
            List<String> serverArgs = new ArrayList<>(plan.server().args());
            serverArgs.add("--port=" + (serverPort == null ? 0 : serverPort));
            ManagedProcess server = start(ManagedProcess.start("server", serverApp, layout.cpusByRole().get("server"),
                    plan.server().jvmOptions(), serverArgs, env, directory));
            server.awaitReady(READY_TIMEOUT);
            AgentClient serverAgent = agent(server);
            String targetUrl = "http://127.0.0.1:" + server.appPort();
            Map<String, AgentClient> clients = new LinkedHashMap<>();
            List<ManagedProcess> clientProcesses = new ArrayList<>();
            for (RunPlan.ClientRole client : plan.clients()) {
                progress(Phase.Starting, "starting " + client.name() + " on CPUs " + cpusText(layout, client.name()));
                clientProcesses.add(start(ManagedProcess.start(client.name(), LocalApps.LOADGEN, layout.cpusByRole().get(client.name()),
                        client.jvmOptions(), List.of(), env, directory)));
            }
            for (int i = 0; i < clientProcesses.size(); i++) {
                clientProcesses.get(i).awaitReady(READY_TIMEOUT);
                clients.put(plan.clients().get(i).name(), agent(clientProcesses.get(i)));
            }
            for (AgentClient agent : allAgents(serverAgent, clients)) {
                awaitHealthy(agent);
            }
            long startAt = plan.startAtEpochMs(System.currentTimeMillis(), START_LEAD);
            long windowStart = startAt + plan.warmup().toMillis();
            long windowEnd = windowStart + plan.duration().toMillis();
            BenchmarkRunSpec.HttpRequest request = spec.request == null ? new BenchmarkRunSpec.HttpRequest() : spec.request;
            for (RunPlan.ClientRole client : plan.clients()) {
                clients.get(client.name()).postRun(plan.runRequest(client, targetUrl, startAt,
                        request.method == null ? "GET" : request.method, request.path == null ? "/" : request.path,
                        request.headers == null ? Map.of() : request.headers, request.body == null ? "" : request.body,
                        RunPlanner.requestTimeout(spec)));
            }
            follow(plan, serverAgent, clients, startAt, windowStart, windowEnd, processes);
            progress(Phase.Collecting, "collecting histograms from " + (clients.size() + 1) + " agents");
            RunCollector.Collected collected = RunCollector.collect(plan, serverAgent, clients, windowStart, windowEnd);
            Analysis.Outcome outcome = Analysis.analyze(collected.input());
            Map<String, Object> serverSummary = new LinkedHashMap<>();
            serverSummary.put("image", plan.server().image());
            serverSummary.put("args", plan.server().args());
            serverSummary.put("labels", plan.server().labels());
            serverSummary.put("cpus", layout.cpusByRole().get("server"));
            ResultDocument document = new ResultDocument(plan.runName(), plan.load(), serverSummary, plan.samplePeriod().toMillis(),
                    outcome.result(), outcome.result().window, outcome.periods(), collected.reports(), collected.infos(), notes);
            document.write(directory);
            for (Map.Entry<String, String> log : collected.rawLogs().entrySet()) {
                Files.writeString(directory.resolve(log.getKey()), log.getValue());
            }
            HtmlReport.write(document, directory);
            List<Long> pids = processes.stream().map(ManagedProcess::pid).toList();
            return new LocalRun(document, directory, pids);
        } finally {
            clearLine();
            stopAll();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it stops the processes
            }
        }
    }

    private ManagedProcess start(ManagedProcess process) {
        processes.add(process);
        return process;
    }

    private static AgentClient agent(ManagedProcess process) {
        return new AgentClient(URI.create("http://127.0.0.1:" + process.adminPort()));
    }

    private static List<AgentClient> allAgents(AgentClient server, Map<String, AgentClient> clients) {
        List<AgentClient> all = new ArrayList<>();
        all.add(server);
        all.addAll(clients.values());
        return all;
    }

    private void awaitHealthy(AgentClient agent) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!agent.isHealthy()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("agent at " + agent.where() + " not healthy after " + READY_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(100);
        }
    }

    /** Follows the run until every client is done; fails when a process dies or the timeout passes. */
    private void follow(RunPlan plan, AgentClient server, Map<String, AgentClient> clients, long startAt, long windowStart,
                        long windowEnd, List<ManagedProcess> watched) throws IOException, InterruptedException {
        long deadline = startAt + plan.timeout().toMillis();
        long totalMs = windowEnd - startAt;
        long lastPlain = 0;
        while (true) {
            for (ManagedProcess process : watched) {
                if (!process.isAlive()) {
                    throw new IOException(process.role() + " exited during the run" + process.exitSummary() + ":\n" + process.logTail(15));
                }
            }
            boolean allDone = true;
            double offered = 0;
            double achieved = 0;
            for (Map.Entry<String, AgentClient> client : clients.entrySet()) {
                Map<String, Object> status = client.getValue().runStatus();
                String state = String.valueOf(status.get("state"));
                if ("failed".equals(state)) {
                    throw new IOException(client.getKey() + " failed: " + status.get("failure"));
                }
                allDone &= "done".equals(state);
                offered += number(status.get("offeredRate"));
                achieved += number(status.get("achievedRate"));
            }
            long now = System.currentTimeMillis();
            if (allDone && now >= windowEnd + plan.samplePeriod().toMillis() / 4) {
                return;
            }
            if (now > deadline) {
                throw new IOException("spec.timeout " + plan.timeout().toSeconds() + " s passed before the clients finished");
            }
            Phase phase = now < windowStart ? Phase.WarmingUp : now < windowEnd ? Phase.Measuring : Phase.Collecting;
            String serverP99 = MetricsText.value(serverMetrics(server), "pacer_period_latency_seconds", "stat", "p99")
                    .map(v -> String.format(Locale.ROOT, "%.3f ms", v * 1000)).orElse("–");
            String line = String.format(Locale.ROOT, "%-10s %5.1f/%.0f s  offered %,.0f req/s  achieved %,.0f req/s  server p99 (last period) %s",
                    phase, Math.max(0, now - startAt) / 1000.0, totalMs / 1000.0, offered, achieved, serverP99);
            if (terminal) {
                out.print("\r" + line + "   ");
                out.flush();
            } else if (now - lastPlain >= PLAIN_PROGRESS_INTERVAL.toMillis()) {
                out.println(line);
                lastPlain = now;
            }
            Thread.sleep(PROGRESS_INTERVAL.toMillis());
        }
    }

    private static String serverMetrics(AgentClient server) {
        try {
            return server.metricsText();
        } catch (IOException e) {
            return "";
        }
    }

    private void progress(Phase phase, String message) {
        clearLine();
        out.println(phase + ": " + message);
    }

    private void clearLine() {
        if (terminal) {
            out.print("\r\033[K");
            out.flush();
        }
    }

    private static String cpusText(CpuLayout layout, String role) {
        List<Integer> cpus = layout.cpusByRole().get(role);
        return cpus == null ? "(not pinned)" : CpuLayout.tasksetList(cpus);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }

    /** Stops every started process; safe to call twice (Ctrl-C during the finally block). */
    synchronized void stopAll() {
        for (ManagedProcess process : processes) {
            process.close();
        }
    }
}
