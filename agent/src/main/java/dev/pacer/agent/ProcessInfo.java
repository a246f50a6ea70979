package dev.pacer.agent;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.CpuList;

/**
 * What {@code GET /pacer/v1/info} answers for this process: who it is and where it runs. The cpuset is the process's
 * {@code Cpus_allowed_list} from {@code /proc/self/status}: the CPUs that taskset or the kubelet's CPU manager
 * actually gave it, not what was asked for.
 */
public final class ProcessInfo {
    public static final String VERSION = "0.1.0";
    private static final Path PROC_SELF_STATUS = Path.of("/proc/self/status");

    private ProcessInfo() {
    }

    /** This process as an agent of a role, measured in process, with its series (the default first) and extra fields. */
    public static AgentInfo describe(String role, long samplePeriodMs, List<String> series, Map<String, Object> extra) {
        Map<String, Object> withHost = new LinkedHashMap<>(extra);
        withHost.putIfAbsent("host", host());
        Optional<String> cpuset = readCpusAllowedList(PROC_SELF_STATUS);
        AgentInfo.Jvm jvm = new AgentInfo.Jvm(System.getProperty("java.runtime.version"), System.getProperty("java.vendor"),
                System.getProperty("java.vm.name"), ManagementFactory.getRuntimeMXBean().getInputArguments(),
                Runtime.getRuntime().maxMemory());
        return new AgentInfo(role, VERSION, AgentInfo.MEASURED_BY_AGENT, ProcessHandle.current().pid(), hostname(),
                readStatusField(PROC_SELF_STATUS, "Uid:").map(v -> Integer.parseInt(v.split("\\s+")[0])).orElse(null),
                cpuset.orElse(null), cpuset.map(CpuList::count).orElse(null), Runtime.getRuntime().availableProcessors(),
                kernel(), jvm, ManagementFactory.getRuntimeMXBean().getStartTime(), samplePeriodMs, List.copyOf(series), withHost);
    }

    /**
     * The machine under the process, for the result's manifest: CPU model, online CPUs and the frequency governor
     * (absent where the kernel does not expose it, as in most VMs).
     */
    public static Map<String, Object> host() {
        Map<String, Object> host = new LinkedHashMap<>();
        try {
            Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name")).findFirst()
                    .ifPresent(l -> host.put("cpuModel", l.substring(l.indexOf(':') + 1).trim()));
        } catch (IOException e) {
            // not Linux: no model
        }
        try {
            host.put("onlineCpus", CpuList.count(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim()));
        } catch (IOException | IllegalArgumentException e) {
            host.put("onlineCpus", Runtime.getRuntime().availableProcessors());
        }
        try {
            host.put("governor", Files.readString(Path.of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")).trim());
        } catch (IOException e) {
            // no cpufreq: nothing to say
        }
        return host;
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

    private static String kernel() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            return System.getProperty("os.version");
        }
    }

    private static String hostname() {
        String fromEnv = System.getenv("HOSTNAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        try {
            return Files.readString(Path.of("/etc/hostname")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
