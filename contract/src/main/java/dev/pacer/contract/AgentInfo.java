package dev.pacer.contract;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@code GET /pacer/v1/info}: who an agent is and where it runs. Golden files: {@code agent-info-*.json}. Fields an
 * agent adds beyond these (a server's name and mode, its port, …) are kept in {@link #extra()} and written back flat.
 *
 * @param role                {@code server} or {@code client}
 * @param version             the agent's version
 * @param measuredBy          what produces the server's histograms: {@code agent} (in process) or {@code probe} (kernel)
 * @param pid                 the measured process
 * @param hostname            the host or pod name
 * @param uid                 the process's user id
 * @param cpuset              the CPUs the process may run on ({@code Cpus_allowed_list}), as taskset or the kubelet gave them
 * @param cpusetSize          how many CPUs that is
 * @param availableProcessors the JVM's view of its CPUs
 * @param kernel              the kernel release, when the agent reads it
 * @param jvm                 the JVM, for a Java process
 * @param startTimeEpochMs    when the process started
 * @param samplePeriodMs      the histograms' sample period
 * @param histogramSeries     the series of {@code /pacer/v1/histograms}, the default first
 * @param extra               further fields, by name
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"role", "version", "measuredBy", "pid", "hostname", "uid", "cpuset", "cpusetSize", "availableProcessors",
        "kernel", "jvm", "startTimeEpochMs", "samplePeriodMs", "histogramSeries"})
public record AgentInfo(String role, String version, String measuredBy, Long pid, String hostname, Integer uid, String cpuset,
                        Integer cpusetSize, Integer availableProcessors, String kernel, Jvm jvm, Long startTimeEpochMs,
                        Long samplePeriodMs, List<String> histogramSeries,
                        @JsonAnySetter @JsonIgnore Map<String, Object> extra) {
    public static final String MEASURED_BY_AGENT = "agent";
    public static final String MEASURED_BY_PROBE = "probe";

    public AgentInfo {
        extra = extra == null ? new LinkedHashMap<>() : new LinkedHashMap<>(extra);
    }

    @JsonAnyGetter
    public Map<String, Object> extraFields() {
        return extra;
    }

    /** One extra field, or {@code null}. */
    public Object extra(String name) {
        return extra.get(name);
    }

    /**
     * @param version      {@code java.runtime.version}
     * @param vendor       {@code java.vendor}
     * @param vm           {@code java.vm.name}
     * @param arguments    the JVM's input arguments (flags)
     * @param maxHeapBytes the heap's limit
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"version", "vendor", "vm", "arguments", "maxHeapBytes"})
    public record Jvm(String version, String vendor, String vm, List<String> arguments, Long maxHeapBytes) {
    }
}
