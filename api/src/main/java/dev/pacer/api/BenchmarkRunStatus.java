package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;

/** Observed state of a run: phase, conditions, pods and the result. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkRunStatus {
    @PrinterColumn(name = "PHASE")
    @JsonPropertyDescription("Pending, Starting, WarmingUp, Measuring, Collecting, Succeeded or Failed.")
    public Phase phase;

    @JsonPropertyDescription("Kubernetes-style conditions.")
    public List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("The generation of the spec this status describes.")
    public Long observedGeneration;

    @PrinterColumn(name = "LOAD")
    @JsonPropertyDescription("The offered load, e.g. 4x60k.")
    public String load;

    @JsonPropertyDescription("The pods of the run with their effective CPUs.")
    public List<PodStatus> pods = new ArrayList<>();

    @JsonPropertyDescription("The figures, once the run succeeded.")
    public RunResult result;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PodStatus {
        public String name;
        public String role;
        public String node;
        @JsonPropertyDescription("The CPUs the process may run on, from its /proc/self/status.")
        public String cpuset;

        public PodStatus() {
        }

        public PodStatus(String name, String role, String node, String cpuset) {
            this.name = name;
            this.role = role;
            this.node = node;
            this.cpuset = cpuset;
        }
    }
}
