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
    private final Path specDirectory;
    private final List<String> notes;
    private final Consumer<String> out;
    private final Map<String, ManagedProcess> processes = new LinkedHashMap<>();
    private final Map<String, Ports> ports = new HashMap<>();
    private ResultDocument published;
    /** The probe beside the server ({@code measure: probe/both}), not a role of the protocol: part of the server. */
    private ManagedProcess probe;
    private Ports probePorts;
    /** Roles seen ready once: an exit after that happened during the run. */
    private final java.util.Set<String> ready = new java.util.HashSet<>();
    /** The server's port when the CLI chose it (a server without the agent, or one the probe watches). */
    private int fixedServerPort;

    private record Ports(int admin, int app) {
    }

    LocalProcesses(RunPlan plan, LocalApps.App serverApp, CpuLayout layout, Integer serverPort, Path directory,
                   Path specDirectory, List<String> notes, Consumer<String> out) {
        this.plan = plan;
        this.specDirectory = specDirectory;
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
        List<Long> pids = new ArrayList<>(processes.values().stream().map(ManagedProcess::pid).toList());
        if (probe != null) {
            pids.add(probe.pid());
        }
        return pids;
    }

    @Override
    public Optional<String> createServer() {
        if (processes.containsKey(AgentContract.ROLE_SERVER)) {
            return Optional.empty();
        }
        RunPlan.ServerRole server = plan.server();
        Map<String, String> env = new LinkedHashMap<>(roleEnvironment());
        // Without the agent nobody reports the port, and the probe needs it before the server listens: the CLI picks it.
        boolean portKnownAhead = server.command() != null || server.measure().probe() || !server.measure().agent();
        if (portKnownAhead) {
            try {
                fixedServerPort = serverPort != null ? serverPort : server.command() != null ? server.port() : LocalPorts.free();
            } catch (IOException e) {
                return Optional.of("cannot find a free port for the server: " + e.getMessage());
            }
            env.put("PORT", Integer.toString(fixedServerPort));
        }
        Optional<String> refused;
        if (server.command() != null) {
            List<String> command = LocalCommand.expand(server.command(), fixedServerPort, directory, specDirectory);
            println(Phase.Starting + ": starting " + String.join(" ", command) + " on CPUs " + cpusText(AgentContract.ROLE_SERVER));
            refused = start(AgentContract.ROLE_SERVER, () -> ManagedProcess.startCommand(AgentContract.ROLE_SERVER, command,
                    layout.cpusByRole().get(AgentContract.ROLE_SERVER), env, directory));
        } else {
            List<String> args = new ArrayList<>(server.args());
            args.add("--port=" + (portKnownAhead ? fixedServerPort : serverPort == null ? 0 : serverPort));
            println(Phase.Starting + ": starting " + serverApp.name() + " on CPUs " + cpusText(AgentContract.ROLE_SERVER));
            refused = start(AgentContract.ROLE_SERVER, () -> ManagedProcess.start(AgentContract.ROLE_SERVER, serverApp,
                    layout.cpusByRole().get(AgentContract.ROLE_SERVER), server.jvmOptions(), args, env, directory));
        }
        if (refused.isPresent() || !server.measure().probe()) {
            return refused;
        }
        return startProbe(processes.get(AgentContract.ROLE_SERVER).pid());
    }

    /** The kernel probe on the server's port and process, on the CPUs the layout gives it (never a client's). */
    private Optional<String> startProbe(long serverPid) {
        List<String> command = List.of(LocalApps.probeBinary().toString(), "--listen=127.0.0.1:" + fixedServerPort,
                "--pid=" + serverPid, "--admin-address=127.0.0.1");
        println(Phase.Starting + ": attaching the kernel probe to the server (pid " + serverPid + ", port " + fixedServerPort + ")");
        try {
            probe = ManagedProcess.startCommand(RunCollector.PROBE_ROLE, command, layout.probeCpus(),
                    roleEnvironment(), directory);
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("cannot start the kernel probe " + LocalApps.probeBinary() + ": " + e.getMessage());
        }
    }

    @Override
    public Optional<String> createProbe(Action.CreateProbe create) {
        return Optional.empty();   // started with the server: it must be there before the server listens
    }

    @Override
    public Optional<String> createClients(List<String> names) {
        for (String name : names) {
            if (!processes.containsKey(name)) {
                println(Phase.Starting + ": starting " + name + " on CPUs " + cpusText(name));
                Optional<String> refused = start(name, () -> ManagedProcess.start(name, LocalApps.LOADGEN,
                        layout.cpusByRole().get(name), plan.client(name).jvmOptions(), List.of(), roleEnvironment(), directory));
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
    public AgentAnswer<RunReport> postStart(Action.PostStart start) {
        return AgentAnswer.ask(() -> agent(start.client()).postStart(start.startAtEpochMs()));
    }

    @Override
    public Outcomes.Collection collect(Action.Collect collect) {
        println(Phase.Collecting + ": collecting histograms from " + processes.size() + " agents");
        try {
            Map<String, AgentClient> clients = new LinkedHashMap<>();
            plan.clients().forEach(c -> clients.put(c.name(), agent(c.name())));
            RunPlan.Measure measure = plan.server().measure();
            return Outcomes.Collection.of(RunCollector.collect(plan, measure.measured() ? agent(AgentContract.ROLE_SERVER) : null,
                    measure == RunPlan.Measure.BOTH ? probeAgent() : null, clients, collect.windowStartEpochMs(), collect.windowEndEpochMs())
                    .placedAt(placed()));
        } catch (IOException e) {
            return Outcomes.Collection.failed(e);
        }
    }

    /** Where each role ran on this machine: its program (an application's jars, or a server's command) and the host. */
    private Map<String, RunCollector.Placed> placed() {
        String host = java.util.Objects.requireNonNullElse(System.getenv("HOSTNAME"), "localhost");
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            // the environment's name will do
        }
        Map<String, RunCollector.Placed> placed = new LinkedHashMap<>();
        RunPlan.ServerRole server = plan.server();
        placed.put(AgentContract.ROLE_SERVER, server.command() != null
                ? new RunCollector.Placed(String.join(" ", server.command()), server.command().getFirst(), host)
                : new RunCollector.Placed(serverApp.name(), LocalApps.libDirectory(serverApp).toString(), host));
        if (probe != null) {
            placed.put(RunCollector.PROBE_ROLE, new RunCollector.Placed("pacer-probe", LocalApps.probeBinary().toString(), host));
        }
        for (RunPlan.ClientRole client : plan.clients()) {
            placed.put(client.name(), new RunCollector.Placed(LocalApps.LOADGEN.name(), LocalApps.libDirectory(LocalApps.LOADGEN).toString(), host));
        }
        return placed;
    }

    @Override
    public Optional<dev.pacer.api.BenchmarkRunStatus.Artifacts> publish(Action.Publish publish) {
        ResultDocument document = publish.document().withNotes(notes);
        try {
            dev.pacer.engine.report.ResultsDirectory.write(directory, document, publish.files());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("writing the results to " + directory + ": " + e.getMessage(), e);
        }
        published = document;
        return Optional.empty();   // the results directory is the run's, printed at its end
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
        if (probe != null) {
            probe.close();
        }
    }

    /** Starts a role's process; a process that cannot be started at all (no such program) is a refusal. */
    private Optional<String> start(String role, ProcessStart start) {
        try {
            synchronized (this) {
                processes.put(role, start.start());
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("cannot start " + role + ": " + e.getMessage());
        }
    }

    private interface ProcessStart {
        ManagedProcess start() throws IOException;
    }

    private Map<String, String> roleEnvironment() {
        return Map.of(AgentContract.SAMPLE_PERIOD_ENV, Long.toString(plan.samplePeriod().toMillis()));
    }

    /** A role's agent ports: for a server the probe measures, the probe's admin port and the server's port. */
    private Optional<Ports> ports(String role) {
        Ports known = ports.get(role);
        if (known != null) {
            return Optional.of(known);
        }
        boolean probed = AgentContract.ROLE_SERVER.equals(role) && plan.server().measure() == RunPlan.Measure.PROBE;
        ManagedProcess process = probed ? probe : processes.get(role);
        Optional<Ports> read = process == null ? Optional.empty() : readyFile(process);
        read.ifPresent(p -> ports.put(role, p));
        return read;
    }

    private static Optional<Ports> readyFile(ManagedProcess process) {
        if (!Files.exists(process.readyFile())) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(process.readyFile().toFile());
            return Optional.of(new Ports(node.path("adminPort").asInt(), node.path("appPort").asInt()));
        } catch (IOException e) {
            return Optional.empty();   // being written
        }
    }

    private AgentClient agent(String role) {
        Ports known = ports(role).orElseThrow(() -> new IllegalStateException(role + " is not ready"));
        return new AgentClient(URI.create("http://127.0.0.1:" + known.admin()));
    }

    /** The probe beside the agent ({@code measure: both}). */
    private AgentClient probeAgent() {
        if (probePorts == null) {
            probePorts = readyFile(probe).orElseThrow(() -> new IllegalStateException("the kernel probe is not ready"));
        }
        return new AgentClient(URI.create("http://127.0.0.1:" + probePorts.admin()));
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
        public Optional<String> waitingFor() {
            return Optional.empty();   // one run at a time by construction: this process runs it
        }

        @Override
        public RoleObservation probe() {
            if (probe == null) {
                return RoleObservation.absent(RunCollector.PROBE_ROLE);
            }
            if (!probe.isAlive()) {
                return new RoleObservation(RoleObservation.Presence.FAILED, RunCollector.PROBE_ROLE, "localhost", null, null, null,
                        null, "ProbeExited", "the kernel probe exited" + probe.exitSummary() + ":\n" + probe.logTail(15));
            }
            Optional<Ports> known = readyFile(probe);
            boolean healthy = known.isPresent() && new AgentClient(URI.create("http://127.0.0.1:" + known.get().admin())).isHealthy();
            return new RoleObservation(healthy ? RoleObservation.Presence.READY : RoleObservation.Presence.STARTING,
                    RunCollector.PROBE_ROLE, "localhost", healthy ? "127.0.0.1" : null, null, null, null, null, null);
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
            boolean server = AgentContract.ROLE_SERVER.equals(role);
            if (!process.isAlive()) {
                return new RoleObservation(RoleObservation.Presence.FAILED, role, "localhost", null, null, null, cpus, "ProcessExited",
                        role + " exited " + (ready.contains(role) ? "during the run" : "before it was ready") + process.exitSummary()
                                + ":\n" + process.logTail(15));
            }
            if (server && probe != null && !probe.isAlive()) {
                return new RoleObservation(RoleObservation.Presence.FAILED, role, "localhost", null, null, null, cpus, "ProbeExited",
                        "the kernel probe of the server exited " + (ready.contains(role) ? "during the run" : "before it was ready")
                                + probe.exitSummary() + ":\n" + probe.logTail(15));
            }
            Optional<Integer> appPort = server ? serverReady() : agentReady(role);
            if (appPort.isPresent()) {
                ready.add(role);
                return new RoleObservation(RoleObservation.Presence.READY, role, "localhost", "127.0.0.1",
                        appPort.get() == 0 ? null : appPort.get(), null, cpus, null, null);
            }
            return new RoleObservation(RoleObservation.Presence.STARTING, role, "localhost", null, null, null, cpus, null, null);
        }

        /** The role's app port once its agent answers {@code /healthz}. */
        private Optional<Integer> agentReady(String role) {
            Optional<Ports> known = ports(role);
            return known.filter(p -> new AgentClient(URI.create("http://127.0.0.1:" + p.admin())).isHealthy()).map(Ports::app);
        }

        /** Per {@code measure}: the agent healthy, the probe healthy (it is once the server listens), the port or path answering. */
        private Optional<Integer> serverReady() {
            RunPlan.ServerRole server = plan.server();
            if (server.measure().agent()) {
                Optional<Integer> app = agentReady(AgentContract.ROLE_SERVER);
                if (app.isEmpty() || server.measure() == RunPlan.Measure.AGENT) {
                    return app;
                }
            }
            if (server.measure().probe()) {
                Optional<Ports> probeReady = readyFile(probe);
                if (probeReady.isEmpty() || !new AgentClient(URI.create("http://127.0.0.1:" + probeReady.get().admin())).isHealthy()) {
                    return Optional.empty();
                }
            }
            return LocalPorts.answers(fixedServerPort, server.readinessPath()) ? Optional.of(fixedServerPort) : Optional.empty();
        }
    }
}
