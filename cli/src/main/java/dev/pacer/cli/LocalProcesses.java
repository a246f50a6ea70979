package dev.pacer.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.Phase;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.CpuList;
import dev.pacer.contract.RunReport;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.protocol.Action;
import dev.pacer.engine.protocol.AgentAnswer;
import dev.pacer.engine.protocol.Notice;
import dev.pacer.engine.protocol.AgentObservations;
import dev.pacer.engine.protocol.Observations;
import dev.pacer.engine.protocol.Outcomes;
import dev.pacer.engine.protocol.RoleObservation;
import dev.pacer.engine.protocol.RunDriver;
import dev.pacer.engine.report.HtmlReport;
import dev.pacer.engine.report.ResultDocument;

/**
 * The run protocol's platform on this machine: roles are processes pinned with taskset ({@link CpuLayout}), ready
 * once their ready file is written and their agent answers {@code /healthz}; the agents are on loopback; publishing
 * writes the results directory.
 */
final class LocalProcesses implements RunDriver.Effects {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RunPlan plan;
    private final LocalApps.App serverApp;
    private final CpuLayout layout;
    private final Integer serverPort;
    private final Path directory;
    private final List<String> notes;
    private final Consumer<String> out;
    private final Map<String, ManagedProcess> processes = new LinkedHashMap<>();
    private final Map<String, Ports> ports = new HashMap<>();
    private ResultDocument published;

    private record Ports(int admin, int app) {
    }

    LocalProcesses(RunPlan plan, LocalApps.App serverApp, CpuLayout layout, Integer serverPort, Path directory,
                   List<String> notes, Consumer<String> out) {
        this.plan = plan;
        this.serverApp = serverApp;
        this.layout = layout;
        this.serverPort = serverPort;
        this.directory = directory;
        this.notes = notes;
        this.out = out;
    }

    /** What the protocol sees this step: each answer read once. */
    Observations observe() {
        return new Seen();
    }

    Optional<ResultDocument> published() {
        return Optional.ofNullable(published);
    }

    List<Long> pids() {
        return processes.values().stream().map(ManagedProcess::pid).toList();
    }

    @Override
    public Optional<String> createServer() {
        if (processes.containsKey(AgentContract.ROLE_SERVER)) {
            return Optional.empty();
        }
        List<String> args = new ArrayList<>(plan.server().args());
        args.add("--port=" + (serverPort == null ? 0 : serverPort));
        println(Phase.Starting + ": starting " + serverApp.name() + " on CPUs " + cpusText(AgentContract.ROLE_SERVER));
        return start(AgentContract.ROLE_SERVER, serverApp, plan.server().jvmOptions(), args);
    }

    @Override
    public Optional<String> createClients(List<String> names) {
        for (String name : names) {
            if (!processes.containsKey(name)) {
                println(Phase.Starting + ": starting " + name + " on CPUs " + cpusText(name));
                Optional<String> refused = start(name, LocalApps.LOADGEN, plan.client(name).jvmOptions(), List.of());
                if (refused.isPresent()) {
                    return refused;
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public AgentAnswer<RunReport> postRun(Action.PostRun post) {
        return AgentAnswer.ask(() -> agent(post.client()).postRun(post.request()));
    }

    @Override
    public Outcomes.Collection collect(Action.Collect collect) {
        println(Phase.Collecting + ": collecting histograms from " + processes.size() + " agents");
        try {
            Map<String, AgentClient> clients = new LinkedHashMap<>();
            plan.clients().forEach(c -> clients.put(c.name(), agent(c.name())));
            return Outcomes.Collection.of(RunCollector.collect(plan, agent(AgentContract.ROLE_SERVER), clients,
                    collect.windowStartEpochMs(), collect.windowEndEpochMs()));
        } catch (IOException e) {
            return Outcomes.Collection.failed(e.getMessage());
        }
    }

    @Override
    public void publish(Action.Publish publish) {
        ResultDocument document = publish.document().withNotes(notes);
        try {
            document.write(directory);
            for (Map.Entry<String, String> log : publish.files().entrySet()) {
                Files.writeString(directory.resolve(log.getKey()), log.getValue());
            }
            HtmlReport.write(document, directory);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("writing the results to " + directory + ": " + e.getMessage(), e);
        }
        published = document;
    }

    @Override
    public void cleanUp(Action.CleanUp cleanUp) {
        stopAll();
    }

    @Override
    public void deleteRun(Action.DeleteRun delete) {
        // a local run is its results directory, kept
    }

    @Override
    public void notify(Notice notice) {
        if (notice.warning()) {
            println("warning: " + notice.reason() + ": " + notice.message());
        } else if (!"Starting".equals(notice.reason()) && !"PodsDeleted".equals(notice.reason())) {
            println(notice.reason() + ": " + notice.message());
        }
    }

    /** Stops every started process; safe to call twice (Ctrl-C during a stop). */
    synchronized void stopAll() {
        processes.values().forEach(ManagedProcess::close);
    }

    /** Starts a role's process; a process that cannot be started at all (no such program) is a refusal. */
    private Optional<String> start(String role, LocalApps.App app, List<String> jvmOptions, List<String> args) {
        Map<String, String> env = Map.of(AgentContract.SAMPLE_PERIOD_ENV, Long.toString(plan.samplePeriod().toMillis()));
        try {
            synchronized (this) {
                processes.put(role, ManagedProcess.start(role, app, layout.cpusByRole().get(role), jvmOptions, args, env, directory));
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("cannot start " + role + ": " + e.getMessage());
        }
    }

    private Optional<Ports> ports(String role) {
        Ports known = ports.get(role);
        if (known != null) {
            return Optional.of(known);
        }
        ManagedProcess process = processes.get(role);
        if (process == null || !Files.exists(process.readyFile())) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(process.readyFile().toFile());
            Ports read = new Ports(node.path("adminPort").asInt(), node.path("appPort").asInt());
            ports.put(role, read);
            return Optional.of(read);
        } catch (IOException e) {
            return Optional.empty();   // being written
        }
    }

    private AgentClient agent(String role) {
        Ports known = ports(role).orElseThrow(() -> new IllegalStateException(role + " is not ready"));
        return new AgentClient(URI.create("http://127.0.0.1:" + known.admin()));
    }

    private String cpusText(String role) {
        List<Integer> cpus = layout.cpusByRole().get(role);
        return cpus == null ? "(not pinned)" : CpuList.format(cpus);
    }

    private void println(String line) {
        out.accept(line);
    }

    /** One step's view of the processes. */
    private final class Seen extends AgentObservations {
        private final Map<String, RoleObservation> roles = new HashMap<>();

        @Override
        public RoleObservation server() {
            return role(AgentContract.ROLE_SERVER);
        }

        @Override
        public RoleObservation client(String name) {
            return role(name);
        }

        @Override
        protected AgentClient agent(String role) {
            return LocalProcesses.this.agent(role);
        }

        private RoleObservation role(String role) {
            return roles.computeIfAbsent(role, this::observe);
        }

        private RoleObservation observe(String role) {
            ManagedProcess process = processes.get(role);
            if (process == null) {
                return RoleObservation.absent(role);
            }
            String cpus = cpusText(role);
            Optional<Ports> known = ports(role);
            if (!process.isAlive()) {
                return new RoleObservation(RoleObservation.Presence.FAILED, role, "localhost", null, null, null, cpus, "ProcessExited",
                        role + " exited " + (known.isPresent() ? "during the run" : "before it was ready") + process.exitSummary()
                                + ":\n" + process.logTail(15));
            }
            if (known.isPresent() && new AgentClient(URI.create("http://127.0.0.1:" + known.get().admin())).isHealthy()) {
                return new RoleObservation(RoleObservation.Presence.READY, role, "localhost", "127.0.0.1",
                        known.get().app() == 0 ? null : known.get().app(), null, cpus, null, null);
            }
            return new RoleObservation(RoleObservation.Presence.STARTING, role, "localhost", null, null, null, cpus, null, null);
        }
    }
}
