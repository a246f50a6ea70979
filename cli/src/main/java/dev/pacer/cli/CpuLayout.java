package dev.pacer.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.pacer.contract.CpuList;

/**
 * How the local orchestrator pins processes with taskset, from the spec's CPUs, the per-role pinning
 * ({@code placement.pinCpus} and its {@code placement.server/clients.pinCpus} overrides, as on Kubernetes) and the
 * CPUs this process may use (its own {@code Cpus_allowed_list}). Pure, so the mapping is tested in one place:
 * <ol>
 *   <li>a pinned server gets the first {@code ceil(server.cpus)} CPUs, exclusively;</li>
 *   <li>pinned clients each get the next {@code ceil(clients.cpus)} CPUs of the rest (of every CPU when the server is
 *       not pinned); when the rest runs out, the clients wrap around and share it (warning: clients share CPUs);</li>
 *   <li>when a pinned server alone needs every CPU, nobody is pinned (warning: pinning impossible);</li>
 *   <li>an unpinned role runs on every CPU this process may use;</li>
 *   <li>the kernel probe of a pinned server gets the first CPU no role holds, else shares the server's: its reading
 *       must never take a client's CPU, whose lateness would count as the server's latency;</li>
 *   <li>for the same reason, pacer's own process (its JVM: polling the agents, analysing, writing the report) runs on
 *       the CPUs no client holds: those no role holds, else the server's.</li>
 * </ol>
 * On a 2-CPU machine, server 1 CPU and two clients of 1: server on CPU 0, both clients on CPU 1, a probe and pacer on
 * CPU 0.
 *
 * @param probeCpus the kernel probe's CPUs; {@code null} when there is no probe or the server is not pinned (it then
 *                  runs where pacer's own process runs: off the clients' CPUs when they are pinned)
 * @param selfCpus  pacer's own CPUs; {@code null} when no client is pinned, or the clients hold every CPU
 * @param available the CPUs this process could use when it planned: an unpinned role's
 */
public record CpuLayout(Map<String, List<Integer>> cpusByRole, List<Integer> probeCpus, List<String> warnings, List<Integer> selfCpus,
                        List<Integer> available) {

    public CpuLayout(Map<String, List<Integer>> cpusByRole, List<Integer> probeCpus, List<String> warnings) {
        this(cpusByRole, probeCpus, warnings, null, null);
    }

    /**
     * The CPUs to start a role on: its own when pinned, else every CPU pacer could use when it planned (said
     * explicitly, so that a role never inherits the CPUs pacer's own threads were moved to); null when unknown.
     */
    public List<Integer> cpusOf(String role) {
        return cpusByRole.getOrDefault(role, available);
    }

    /** Without a kernel probe. */
    public static CpuLayout plan(List<Integer> available, int serverCpus, List<String> clientNames, int cpusPerClient,
                                 boolean pinServer, boolean pinClients) {
        return plan(available, serverCpus, clientNames, cpusPerClient, pinServer, pinClients, false);
    }

    public static CpuLayout plan(List<Integer> available, int serverCpus, List<String> clientNames, int cpusPerClient,
                                 boolean pinServer, boolean pinClients, boolean withProbe) {
        CpuLayout pinned = roles(available, serverCpus, clientNames, cpusPerClient, pinServer, pinClients);
        CpuLayout roles = new CpuLayout(pinned.cpusByRole(), null, pinned.warnings(), selfCpus(available, pinned.cpusByRole()),
                List.copyOf(available));
        List<Integer> server = roles.cpusByRole().get("server");
        if (!withProbe || server == null) {
            return roles;
        }
        List<Integer> free = available.stream().filter(cpu -> roles.cpusByRole().values().stream().noneMatch(held -> held.contains(cpu))).toList();
        List<String> warnings = new ArrayList<>(roles.warnings());
        if (free.isEmpty()) {
            warnings.add(String.format("the kernel probe shares the server's CPUs %s: no CPU is left beside the server and the clients", server));
        }
        return new CpuLayout(roles.cpusByRole(), free.isEmpty() ? server : List.of(free.getFirst()), List.copyOf(warnings), roles.selfCpus(), roles.available());
    }

    /** The CPUs no client holds: those no role holds, else the server's; null when no client is pinned or none is left. */
    private static List<Integer> selfCpus(List<Integer> available, Map<String, List<Integer>> byRole) {
        List<Integer> clients = byRole.entrySet().stream().filter(role -> !role.getKey().equals("server"))
                .flatMap(role -> role.getValue().stream()).toList();
        if (clients.isEmpty()) {
            return null;
        }
        List<Integer> server = byRole.getOrDefault("server", List.of());
        List<Integer> free = available.stream().filter(cpu -> !clients.contains(cpu) && !server.contains(cpu)).toList();
        List<Integer> notClients = available.stream().filter(cpu -> !clients.contains(cpu)).toList();
        List<Integer> chosen = free.isEmpty() ? notClients : free;
        return chosen.isEmpty() ? null : List.copyOf(chosen);
    }

    /** The layout in a line: each role's CPUs and the probe's, or "not pinned". */
    public String describe() {
        if (cpusByRole.isEmpty()) {
            return "CPUs: nothing pinned";
        }
        StringBuilder line = new StringBuilder("CPUs:");
        cpusByRole.forEach((role, cpus) -> line.append(' ').append(role).append(' ').append(CpuList.format(cpus)).append(','));
        if (!cpusByRole.containsKey("server")) {
            line.append(" server not pinned,");
        }
        if (probeCpus != null) {
            line.append(" kernel probe ").append(CpuList.format(probeCpus)).append(',');
        }
        if (selfCpus != null) {
            line.append(" pacer ").append(CpuList.format(selfCpus)).append(',');
        }
        line.setLength(line.length() - 1);
        return line.toString();
    }

    private static CpuLayout roles(List<Integer> available, int serverCpus, List<String> clientNames, int cpusPerClient,
                                   boolean pinServer, boolean pinClients) {
        Map<String, List<Integer>> byRole = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        if (!pinServer && !pinClients) {
            warnings.add("placement.pinCpus is false: processes are not pinned and compete for every CPU");
            return new CpuLayout(byRole, null, warnings);
        }
        List<Integer> rest = available;
        if (pinServer) {
            if (serverCpus >= available.size()) {
                warnings.add(String.format("pinning impossible: the server asks for %d CPUs and this machine allows %d; nothing is pinned",
                        serverCpus, available.size()));
                return new CpuLayout(byRole, null, warnings);
            }
            byRole.put("server", List.copyOf(available.subList(0, serverCpus)));
            rest = available.subList(serverCpus, available.size());
        } else {
            warnings.add("the server is not pinned (placement.server.pinCpus: false): it runs on every CPU, the clients' too");
        }
        if (!pinClients) {
            warnings.add("the clients are not pinned (placement.clients.pinCpus: false): they run on every CPU, the server's too");
            return new CpuLayout(byRole, null, warnings);
        }
        int per = Math.min(Math.max(1, cpusPerClient), rest.size());
        int next = 0;
        boolean shared = false;
        for (String client : clientNames) {
            List<Integer> cpus = new ArrayList<>();
            for (int i = 0; i < per; i++) {
                if (next >= rest.size()) {
                    next = 0;
                    shared = true;
                }
                cpus.add(rest.get(next++));
            }
            byRole.put(client, List.copyOf(cpus));
        }
        if (shared || cpusPerClient > rest.size()) {
            warnings.add(String.format("clients share CPUs: %d clients x %d CPUs asked, %d CPUs left after the server %s",
                    clientNames.size(), cpusPerClient, rest.size(), byRole.getOrDefault("server", List.of())));
        }
        return new CpuLayout(byRole, null, warnings);
    }

    /** The CPUs this process may run on: its {@code Cpus_allowed_list}, else 0…availableProcessors-1. */
    public static List<Integer> availableCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return CpuList.cpus(line.substring("Cpus_allowed_list:".length()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            all.add(i);
        }
        return all;
    }
}
