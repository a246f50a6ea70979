package dev.pacer.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the local orchestrator pins processes with taskset, from the spec's CPUs and the CPUs this process may use
 * (its own {@code Cpus_allowed_list}). Pure, so the mapping is tested and documented in one place:
 * <ol>
 *   <li>the server gets the first {@code ceil(server.cpus)} CPUs, exclusively;</li>
 *   <li>each client in turn gets the next {@code ceil(clients.cpus)} CPUs of the rest; when the rest runs out, the
 *       clients wrap around and share the rest (with a warning: clients share CPUs);</li>
 *   <li>when the server alone needs every CPU, nobody is pinned (warning: pinning impossible).</li>
 * </ol>
 * On a 2-CPU machine, server 1 CPU and two clients of 1: server on CPU 0, both clients on CPU 1.
 */
public record CpuLayout(Map<String, List<Integer>> cpusByRole, List<String> warnings) {

    public static CpuLayout plan(List<Integer> available, int serverCpus, List<String> clientNames, int cpusPerClient, boolean pin) {
        Map<String, List<Integer>> byRole = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        if (!pin) {
            warnings.add("placement.pinCpus is false: processes are not pinned and compete for every CPU");
            return new CpuLayout(byRole, warnings);
        }
        if (serverCpus >= available.size()) {
            warnings.add(String.format("pinning impossible: the server asks for %d CPUs and this machine allows %d; nothing is pinned",
                    serverCpus, available.size()));
            return new CpuLayout(byRole, warnings);
        }
        byRole.put("server", List.copyOf(available.subList(0, serverCpus)));
        List<Integer> rest = available.subList(serverCpus, available.size());
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
                    clientNames.size(), cpusPerClient, rest.size(), byRole.get("server")));
        }
        return new CpuLayout(byRole, warnings);
    }

    /** A taskset list such as {@code 1,2}. */
    public static String tasksetList(List<Integer> cpus) {
        return String.join(",", cpus.stream().map(String::valueOf).toList());
    }

    /** The CPUs this process may run on: its {@code Cpus_allowed_list}, else 0…availableProcessors-1. */
    public static List<Integer> availableCpus() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parseCpuList(line.substring("Cpus_allowed_list:".length()));
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // fall through
        }
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            all.add(i);
        }
        return all;
    }

    /** Parses a Cpus_allowed_list such as {@code 0-3,6}. */
    public static List<Integer> parseCpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.trim().split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            if (dash < 0) {
                cpus.add(Integer.parseInt(part.trim()));
            } else {
                for (int c = Integer.parseInt(part.substring(0, dash).trim()); c <= Integer.parseInt(part.substring(dash + 1).trim()); c++) {
                    cpus.add(c);
                }
            }
        }
        return cpus;
    }
}
