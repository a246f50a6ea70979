package dev.pacer.agent;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code GET /pacer/v1/info} answers: who this process is and where it runs. The cpuset is the process's
 * {@code Cpus_allowed_list} from {@code /proc/self/status}: the CPUs that taskset or the kubelet's CPU manager
 * actually gave it, not what was asked for.
 */
public final class AgentInfo {
    public static final String VERSION = "0.1.0";
    private static final Path PROC_SELF_STATUS = Path.of("/proc/self/status");

    private AgentInfo() {
    }

    public static Map<String, Object> describe(String role, Map<String, Object> extra) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("role", role);
        info.put("version", VERSION);
        info.put("pid", ProcessHandle.current().pid());
        info.put("hostname", hostname());
        info.put("uid", readStatusField(PROC_SELF_STATUS, "Uid:").map(v -> Integer.parseInt(v.split("\\s+")[0])).orElse(null));
        Optional<String> cpuset = readCpusAllowedList(PROC_SELF_STATUS);
        info.put("cpuset", cpuset.orElse(null));
        info.put("cpusetSize", cpuset.map(AgentInfo::cpuCount).orElse(null));
        info.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        Map<String, Object> jvm = new LinkedHashMap<>();
        jvm.put("version", System.getProperty("java.runtime.version"));
        jvm.put("vendor", System.getProperty("java.vendor"));
        jvm.put("vm", System.getProperty("java.vm.name"));
        jvm.put("arguments", ManagementFactory.getRuntimeMXBean().getInputArguments());
        jvm.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        info.put("jvm", jvm);
        info.put("startTimeEpochMs", ManagementFactory.getRuntimeMXBean().getStartTime());
        info.putAll(extra);
        return info;
    }

    /** The {@code Cpus_allowed_list} value of a {@code /proc/<pid>/status} file, e.g. {@code 0-3,6}. */
    public static Optional<String> readCpusAllowedList(Path procStatus) {
        return readStatusField(procStatus, "Cpus_allowed_list:");
    }

    static Optional<String> readStatusField(Path procStatus, String field) {
        try {
            for (String line : Files.readAllLines(procStatus)) {
                if (line.startsWith(field)) {
                    return Optional.of(line.substring(field.length()).trim());
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** Number of CPUs in a list such as {@code 0-3,6}. */
    public static int cpuCount(String cpuList) {
        int count = 0;
        for (String part : cpuList.split(",")) {
            String range = part.trim();
            if (range.isEmpty()) {
                continue;
            }
            int dash = range.indexOf('-');
            if (dash < 0) {
                Integer.parseInt(range);
                count++;
            } else {
                count += Integer.parseInt(range.substring(dash + 1)) - Integer.parseInt(range.substring(0, dash)) + 1;
            }
        }
        return count;
    }

    private static String hostname() {
        String fromEnv = System.getenv("HOSTNAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        try {
            return List.of(Files.readString(Path.of("/etc/hostname")).trim()).getFirst();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
