package dev.pacer.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.contract.CpuList;
import dev.pacer.engine.agents.AgentClient;

/**
 * The processes of a local run, as the API server's pods are the operator's: {@link LocalEffects} starts them,
 * {@link LocalObservations} reads them. Each role's process writes a ready file with its agent's ports.
 */
final class LocalProcessTable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CpuLayout layout;
    private final Map<String, ManagedProcess> processes = new LinkedHashMap<>();
    private final Map<String, Ports> ports = new HashMap<>();
    /** The probe beside the server ({@code measure: probe/both}), not a role of the protocol: part of the server. */
    private ManagedProcess probe;
    private Ports probePorts;
    /** Roles seen ready once: an exit after that happened during the run. */
    private final Set<String> ready = new HashSet<>();
    /** The server's port when the CLI chose it (a server without the agent, or one the probe watches); 0 before. */
    private int fixedServerPort;

    /** An agent's admin port and its application's port, from its ready file. */
    record Ports(int admin, int app) {
    }

    LocalProcessTable(CpuLayout layout) {
        this.layout = layout;
    }

    synchronized void put(String role, ManagedProcess process) {
        processes.put(role, process);
    }

    synchronized void putProbe(ManagedProcess process) {
        probe = process;
    }

    synchronized Optional<ManagedProcess> process(String role) {
        return Optional.ofNullable(processes.get(role));
    }

    synchronized Optional<ManagedProcess> probe() {
        return Optional.ofNullable(probe);
    }

    synchronized int size() {
        return processes.size();
    }

    void fixServerPort(int port) {
        fixedServerPort = port;
    }

    int fixedServerPort() {
        return fixedServerPort;
    }

    void markReady(String role) {
        ready.add(role);
    }

    boolean wasReady(String role) {
        return ready.contains(role);
    }

    /** The ports a role's own process wrote, once it wrote them. */
    Optional<Ports> ports(String role) {
        Ports known = ports.get(role);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<Ports> read = process(role).flatMap(LocalProcessTable::readyFile);
        read.ifPresent(p -> ports.put(role, p));
        return read;
    }

    Optional<Ports> probePorts() {
        if (probePorts == null) {
            probePorts = probe().flatMap(LocalProcessTable::readyFile).orElse(null);
        }
        return Optional.ofNullable(probePorts);
    }

    /** The agent in a role's own process. */
    AgentClient processAgent(String role) {
        return agentAt(ports(role).orElseThrow(() -> new IllegalStateException(role + " is not ready")));
    }

    /** The kernel probe's agent. */
    AgentClient probeAgent() {
        return agentAt(probePorts().orElseThrow(() -> new IllegalStateException("the kernel probe is not ready")));
    }

    static AgentClient agentAt(Ports ports) {
        return new AgentClient(URI.create("http://127.0.0.1:" + ports.admin()));
    }

    synchronized List<Long> pids() {
        List<Long> pids = new ArrayList<>(processes.values().stream().map(ManagedProcess::pid).toList());
        if (probe != null) {
            pids.add(probe.pid());
        }
        return pids;
    }

    /** Stops every started process; safe to call twice (Ctrl-C during a stop). */
    synchronized void stopAll() {
        processes.values().forEach(ManagedProcess::close);
        if (probe != null) {
            probe.close();
        }
    }

    CpuLayout layout() {
        return layout;
    }

    /** A role's CPUs as taskset got them, or "(not pinned)". */
    String cpusText(String role) {
        List<Integer> cpus = layout.cpusByRole().get(role);
        return cpus == null ? "(not pinned)" : CpuList.format(cpus);
    }

    static Optional<Ports> readyFile(ManagedProcess process) {
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
}
