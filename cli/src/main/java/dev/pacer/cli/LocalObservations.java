package dev.pacer.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.pacer.contract.AgentContract;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.protocol.AgentObservations;
import dev.pacer.engine.protocol.RoleObservation;

/**
 * A local run as one step of the protocol sees it: each role a process on this machine, ready once its ready file is
 * written and its agent answers {@code /healthz} (a server without the agent: once its port or readiness path
 * answers); every answer read once per step. The mirror of the operator's {@code PodObservations}.
 */
final class LocalObservations extends AgentObservations {
    private static final String HOST = "localhost";
    private static final String LOOPBACK = "127.0.0.1";

    private final LocalProcessTable table;
    private final LocalApps.App serverApp;
    private final Map<String, RoleObservation> roles = new HashMap<>();
    /** The probe's /healthz, asked once per step (both the probe's and the server's observation need it). */
    private Boolean probeHealthy;

    /** @param serverApp the pacer server started, {@code null} for a server command */
    LocalObservations(RunPlan plan, LocalProcessTable table, LocalApps.App serverApp) {
        super(plan);
        this.table = table;
        this.serverApp = serverApp;
    }

    /** Where each role ran on this machine: its program (an application's jars, or a server's command) and the host. */
    Map<String, RunCollector.Placed> placed() {
        String host = Objects.requireNonNullElse(System.getenv("HOSTNAME"), "localhost");
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            // the environment's name will do
        }
        Map<String, RunCollector.Placed> placed = new LinkedHashMap<>();
        RunPlan.ServerRole server = plan.server();
        placed.put(AgentContract.ROLE_SERVER, server.command() != null
                ? new RunCollector.Placed(String.join(" ", server.command()), server.command().getFirst(), host)
                : new RunCollector.Placed(serverApp.name(), LocalApps.libDirectory(serverApp).toString(), host));
        if (table.probe().isPresent()) {
            placed.put(AgentContract.ROLE_PROBE, new RunCollector.Placed("pacer-probe", LocalApps.probeBinary().toString(), host));
        }
        for (RunPlan.ClientRole client : plan.clients()) {
            placed.put(client.name(), new RunCollector.Placed(LocalApps.LOADGEN.name(), LocalApps.libDirectory(LocalApps.LOADGEN).toString(), host));
        }
        return placed;
    }

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
        Optional<ManagedProcess> probe = table.probe();
        if (probe.isEmpty()) {
            return RoleObservation.absent(AgentContract.ROLE_PROBE);
        }
        if (!probe.get().isAlive()) {
            return new RoleObservation(RoleObservation.Presence.FAILED, AgentContract.ROLE_PROBE, HOST, null, null, null,
                    null, "ProbeExited", "the kernel probe exited" + probe.get().exitSummary() + ":\n" + probe.get().logTail(15));
        }
        boolean healthy = probeHealthy();
        return new RoleObservation(healthy ? RoleObservation.Presence.READY : RoleObservation.Presence.STARTING,
                AgentContract.ROLE_PROBE, HOST, healthy ? LOOPBACK : null, null, null, null, null, null);
    }

    @Override
    protected AgentClient processAgent(String role) {
        return table.processAgent(role);
    }

    @Override
    protected AgentClient probeAgent() {
        return table.probeAgent();
    }

    private RoleObservation role(String role) {
        return roles.computeIfAbsent(role, this::observe);
    }

    private RoleObservation observe(String role) {
        Optional<ManagedProcess> found = table.process(role);
        if (found.isEmpty()) {
            return RoleObservation.absent(role);
        }
        ManagedProcess process = found.get();
        String cpus = table.cpusText(role);
        boolean server = AgentContract.ROLE_SERVER.equals(role);
        String when = table.wasReady(role) ? "during the run" : "before it was ready";
        if (!process.isAlive()) {
            return new RoleObservation(RoleObservation.Presence.FAILED, role, HOST, null, null, null, cpus, "ProcessExited",
                    role + " exited " + when + process.exitSummary() + ":\n" + process.logTail(15));
        }
        Optional<ManagedProcess> probe = table.probe();
        if (server && probe.isPresent() && !probe.get().isAlive()) {
            return new RoleObservation(RoleObservation.Presence.FAILED, role, HOST, null, null, null, cpus, "ProbeExited",
                    "the kernel probe of the server exited " + when + probe.get().exitSummary() + ":\n" + probe.get().logTail(15));
        }
        Optional<Integer> appPort = server ? serverReady() : agentReady(role);
        if (appPort.isPresent()) {
            table.markReady(role);
            return new RoleObservation(RoleObservation.Presence.READY, role, HOST, LOOPBACK,
                    appPort.get() == 0 ? null : appPort.get(), null, cpus, null, null);
        }
        return new RoleObservation(RoleObservation.Presence.STARTING, role, HOST, null, null, null, cpus, null, null);
    }

    /** The role's app port once its own agent answers {@code /healthz}. */
    private Optional<Integer> agentReady(String role) {
        return table.ports(role).filter(p -> LocalProcessTable.agentAt(p).isHealthy()).map(LocalProcessTable.Ports::app);
    }

    private boolean probeHealthy() {
        if (probeHealthy == null) {
            probeHealthy = table.probePorts().filter(p -> LocalProcessTable.agentAt(p).isHealthy()).isPresent();
        }
        return probeHealthy;
    }

    /**
     * Per {@code measure}: the server's agent healthy (its port is the one it reports); without the agent, the probe
     * healthy when there is one (it is once the server listens) and the chosen port or readiness path answering.
     */
    private Optional<Integer> serverReady() {
        RunPlan.ServerRole server = plan.server();
        if (server.measure().agent()) {
            Optional<Integer> app = agentReady(AgentContract.ROLE_SERVER);
            if (app.isEmpty() || !server.measure().probe()) {
                return app;
            }
        }
        if (server.measure().probe() && !probeHealthy()) {
            return Optional.empty();
        }
        int port = table.fixedServerPort();
        return LocalPorts.answers(port, server.readinessPath(), plan.tls() != null) ? Optional.of(port) : Optional.empty();
    }
}
