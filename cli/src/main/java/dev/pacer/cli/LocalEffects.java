package dev.pacer.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.protocol.Action;
import dev.pacer.engine.protocol.AgentAnswer;
import dev.pacer.engine.protocol.Notice;
import dev.pacer.engine.protocol.Outcomes;
import dev.pacer.engine.protocol.RunDriver;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.engine.report.ResultsDirectory;

/**
 * What the protocol asks of this machine: roles started as processes pinned with taskset ({@link CpuLayout}), the
 * kernel probe with the server, the agents asked on loopback, the results directory written. The mirror of the
 * operator's {@code PodEffects}.
 */
final class LocalEffects implements RunDriver.Effects {
    private final RunPlan plan;
    private final LocalTls.Material tls;
    private final LocalProcessTable table;
    private final LocalApps.App serverApp;
    private final Integer serverPort;
    private final Path directory;
    private final Path specDirectory;
    private final List<String> notes;
    private final Consumer<String> out;
    private ResultDocument published;

    /**
     * @param serverApp     the pacer server to start, {@code null} for a server command
     * @param serverPort    the server's port asked on the command line, {@code null}: a free one
     * @param specDirectory the spec's directory, {@code ${SPEC_DIR}} of a server command
     * @param notes         what the result notes of this machine (the CPU layout's warnings)
     */
    /** @param tls the server's certificate and key of an https run; {@code null} in cleartext */
    LocalEffects(RunPlan plan, LocalProcessTable table, LocalApps.App serverApp, Integer serverPort, Path directory,
                 Path specDirectory, LocalTls.Material tls, List<String> notes, Consumer<String> out) {
        this.plan = plan;
        this.tls = tls;
        this.table = table;
        this.serverApp = serverApp;
        this.serverPort = serverPort;
        this.directory = directory;
        this.specDirectory = specDirectory;
        this.notes = notes;
        this.out = out;
    }

    Optional<ResultDocument> published() {
        return Optional.ofNullable(published);
    }

    @Override
    public Optional<String> createServer() {
        if (table.process(AgentContract.ROLE_SERVER).isPresent()) {
            return Optional.empty();
        }
        RunPlan.ServerRole server = plan.server();
        Map<String, String> env = new LinkedHashMap<>(roleEnvironment());
        // Without the agent nobody reports the port, and the probe needs it before the server listens: the CLI picks it.
        boolean portKnownAhead = server.command() != null || server.measure().probe() || !server.measure().agent();
        if (portKnownAhead) {
            try {
                table.fixServerPort(serverPort != null ? serverPort : server.command() != null ? server.port() : LocalPorts.free());
            } catch (IOException e) {
                return Optional.of("cannot find a free port for the server: " + e.getMessage());
            }
            env.put("PORT", Integer.toString(table.fixedServerPort()));
        }
        if (tls != null) {   // any server: where its certificate and key are
            env.put(AgentContract.TLS_CERT_ENV, tls.certificate().toString());
            env.put(AgentContract.TLS_KEY_ENV, tls.key().toString());
        }
        List<Integer> cpus = table.layout().cpusOf(AgentContract.ROLE_SERVER);
        Optional<String> refused;
        if (server.command() != null) {
            List<String> command = LocalCommand.expand(server.command(), table.fixedServerPort(), directory, specDirectory);
            println(Phase.Starting + ": starting " + String.join(" ", command) + " on CPUs " + table.cpusText(AgentContract.ROLE_SERVER));
            refused = start(AgentContract.ROLE_SERVER, () -> ManagedProcess.startCommand(AgentContract.ROLE_SERVER, command, cpus, env, directory));
        } else {
            List<String> args = new ArrayList<>(server.args());
            args.add("--port=" + (portKnownAhead ? table.fixedServerPort() : serverPort == null ? 0 : serverPort));
            if (tls != null) {
                args.addAll(plan.tls().serverArgs(tls.certificate().toString(), tls.key().toString()));
            }
            println(Phase.Starting + ": starting " + serverApp.name() + " on CPUs " + table.cpusText(AgentContract.ROLE_SERVER));
            refused = start(AgentContract.ROLE_SERVER, () -> ManagedProcess.start(AgentContract.ROLE_SERVER, serverApp, cpus,
                    server.jvmOptions(), args, env, directory));
        }
        if (refused.isPresent() || !server.measure().probe()) {
            return refused;
        }
        return startProbe(table.process(AgentContract.ROLE_SERVER).orElseThrow().pid());
    }

    /** The kernel probe on the server's port and process, on the CPUs the layout gives it (never a client's). */
    private Optional<String> startProbe(long serverPid) {
        int port = table.fixedServerPort();
        List<String> command = List.of(LocalApps.probeBinary().toString(), "--listen=127.0.0.1:" + port,
                "--pid=" + serverPid, "--admin-address=127.0.0.1");
        println(Phase.Starting + ": attaching the kernel probe to the server (pid " + serverPid + ", port " + port + ")");
        try {
            table.putProbe(ManagedProcess.startCommand(AgentContract.ROLE_PROBE, command, table.layout().probeCpus(),
                    roleEnvironment(), directory));
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
            if (table.process(name).isEmpty()) {
                println(Phase.Starting + ": starting " + name + " on CPUs " + table.cpusText(name));
                Optional<String> refused = start(name, () -> ManagedProcess.start(name, LocalApps.LOADGEN,
                        table.layout().cpusOf(name), plan.client(name).jvmOptions(), List.of(), roleEnvironment(), directory));
                if (refused.isPresent()) {
                    return refused;
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public AgentAnswer<LoadRunStatus> postRun(Action.PostRun post) {
        return AgentAnswer.ask(() -> table.processAgent(post.client()).postRun(post.request()));
    }

    @Override
    public AgentAnswer<LoadRunStatus> postStart(Action.PostStart start) {
        return AgentAnswer.ask(() -> table.processAgent(start.client()).postStart(start.startAtEpochMs()));
    }

    @Override
    public AgentAnswer<LoadRunStatus> moveWindow(Action.MoveWindow move) {
        return AgentAnswer.ask(() -> table.processAgent(move.client()).postWindow(move.windowStartEpochMs()));
    }

    @Override
    public Outcomes.Collection collect(Action.Collect collect) {
        println(Phase.Collecting + ": collecting histograms from " + table.size() + " agents");
        try {
            LocalObservations seen = new LocalObservations(plan, table, serverApp);
            return Outcomes.Collection.of(seen.collect(collect.windowStartEpochMs(), collect.windowEndEpochMs()).placedAt(seen.placed()));
        } catch (IOException e) {
            return Outcomes.Collection.failed(e);
        }
    }

    @Override
    public Optional<BenchmarkRunStatus.Artifacts> publish(Action.Publish publish) {
        ResultDocument document = publish.document().withNotes(notes);
        try {
            ResultsDirectory.write(directory, document, publish.files());
        } catch (IOException e) {
            throw new UncheckedIOException("writing the results to " + directory + ": " + e.getMessage(), e);
        }
        published = document;
        return Optional.empty();   // the results directory is the run's, printed at its end
    }

    @Override
    public void cleanUp(Action.CleanUp cleanUp) {
        table.stopAll();
    }

    /** Locally a kept role is its log file, already in the results directory: the processes stop, freeing their CPUs. */
    @Override
    public void stopRoles(Action.StopRoles stop) {
        table.stopAll();
    }

    @Override
    public void expireRun(Action.ExpireRun expire) {
        // a local run is its results directory, kept
    }

    /** Warnings and news of the run; what concerns creating or deleting the roles is said by this class as it starts them. */
    @Override
    public void notify(Notice notice) {
        if (notice.warning()) {
            println("warning: " + notice.reason() + ": " + notice.message());
        } else if (notice.about() == Notice.About.RUN) {
            println(notice.reason() + ": " + notice.message());
        }
    }

    /** Starts a role's process; a process that cannot be started at all (no such program) is a refusal. */
    private Optional<String> start(String role, ProcessStart start) {
        try {
            table.put(role, start.start());
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

    private void println(String line) {
        out.accept(line);
    }
}
