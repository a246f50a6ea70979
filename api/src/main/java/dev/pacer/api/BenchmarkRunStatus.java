package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.Condition;

/** Observed state of a run: phase, conditions, pods and the result. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkRunStatus {
    @JsonPropertyDescription("Pending, Queued (waiting for other runs: the operator runs at most PACER_MAX_ACTIVE_RUNS at once), Starting, WarmingUp, Measuring, Collecting, Succeeded or Failed.")
    public Phase phase;

    @JsonPropertyDescription("Kubernetes-style conditions. Outcome: Finished (True once Succeeded or Failed), Complete (True when the run has a verdict), Passed (True when the verdict is Passed; False once finished otherwise), Failed (True when the run could not be completed, the reason says why). For CI: kubectl wait --for=condition=Finished, then --for=condition=Passed. Progress: Ready (Unknown while running, the reason is the phase; not a pass/fail signal), SpecValid, PodsReady, AgentsReachable, CpusPinned.")
    @SchemaFrom(type = ConditionSchema[].class)
    public List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("The generation of the spec this status describes.")
    public Long observedGeneration;

    @JsonPropertyDescription("The offered load, e.g. 4x60k.")
    public String load;

    @JsonPropertyDescription("The pods of the run with their effective CPUs.")
    public List<PodStatus> pods = new ArrayList<>();

    @JsonPropertyDescription("The figures, once the run succeeded.")
    public RunResult result;

    @JsonPropertyDescription("The instant every client starts (epoch ms), the barrier posted to all of them; set before it is posted, so a restarted operator posts the same one.")
    public Long startAtEpochMs;

    @JsonPropertyDescription("startAtEpochMs as RFC 3339.")
    public String startAt;

    @JsonPropertyDescription("The measured window (epoch ms): from startAtEpochMs + warmup, for the duration; later when the warm-up was extended.")
    public RunResult.Window window;

    @JsonPropertyDescription("How much longer than spec.warmup the warm-up lasted, seconds: a client was still behind its schedule as "
            + "the warm-up was to end, so the window started later (within spec.timeout; past spec.warmup more only while the backlog "
            + "shrank); absent when it was not extended.")
    public Double warmupExtendedSeconds;

    @JsonPropertyDescription("The largest client backlog, ms of its schedule, at the last look that moved the window later.")
    public Long warmupBacklogMs;

    @JsonPropertyDescription("The start of the window (epoch ms) whose clients were judged on their schedules or not, at its first "
            + "look from just before it; later looks do not judge it again.")
    public Long windowJudgedEpochMs;

    @JsonPropertyDescription("The clients behind their schedules as the window started, when the warm-up could grow no further "
            + "(or when the first look at the window came too late to move it), and why: the window measured their catching up, and the verdict is Invalid. Absent when every client was on its schedule at the look just before the window.")
    public String behindAtWindowStart;

    @JsonPropertyDescription("Live figures while the load runs, refreshed every few seconds.")
    public Progress progress;

    @JsonPropertyDescription("Whether the run's pods were deleted, as spec.cleanup.pods says.")
    public Boolean podsDeleted;

    @JsonPropertyDescription("Whether the pods a failed run keeps (spec.cleanup.pods OnSuccess) were stopped: their logs stay "
            + "readable and their CPUs are free for the next run.")
    public Boolean podsStopped;

    @JsonPropertyDescription("When the run was first taken up (RFC 3339); spec.timeout counts from here.")
    public String startTime;

    @JsonPropertyDescription("When the run reached Succeeded or Failed (RFC 3339); ttlSecondsAfterFinished counts from here.")
    public String completionTime;

    @JsonPropertyDescription("The run dashboard in Grafana, opened on this run's warm-up and measured window (set once the "
            + "window is known, when the operator is given Grafana's address: the chart's grafana.url).")
    public String dashboard;

    @JsonPropertyDescription("Where the run's raw histogram logs, result.json and report.html are kept after its pods are gone: "
            + "'pacer fetch NAME' downloads them. Absent when the operator keeps no artifacts.")
    public Artifacts artifacts;

    /** Where a finished run's results directory is kept (docs/operator.md, "Artifacts"). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Artifacts {
        @JsonPropertyDescription("The results directory within the operator's artifact store: NAMESPACE/NAME-UID.")
        public String path;

        @JsonPropertyDescription("The operator's Service that serves them, NAMESPACE/NAME:PORT, reached through the API server's "
                + "service proxy (needs get on services/proxy there).")
        public String service;

        @JsonPropertyDescription("The number of files kept: result.json, report.html, every .hlog and .hgrm.")
        public Integer files;

        @JsonPropertyDescription("Their total size in bytes.")
        public Long bytes;

        @JsonPropertyDescription("When the store deletes them (RFC 3339); absent: kept while the BenchmarkRun exists.")
        public String keptUntil;

        @JsonPropertyDescription("Why they could not be kept, when they could not; the result above stands.")
        public String error;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Progress {
        @JsonPropertyDescription("Seconds since startAt.")
        public Double elapsedSeconds;
        @JsonPropertyDescription("Warm-up plus duration, seconds.")
        public Double totalSeconds;
        @JsonPropertyDescription("Offered requests per second, all clients.")
        public Double offeredRate;
        @JsonPropertyDescription("Achieved requests per second, all clients, as they last reported.")
        public Double achievedRate;
        @JsonPropertyDescription("Errors so far, all clients.")
        public Long errors;
        @JsonPropertyDescription("The server's P99 of its last closed period, microseconds.")
        public Long serverLastPeriodP99Micros;
        @JsonPropertyDescription("When these figures were taken (RFC 3339).")
        public String updated;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PodStatus {
        @JsonPropertyDescription("The pod's name.")
        public String name;
        @JsonPropertyDescription("server, or the client's name (client-0, …).")
        public String role;
        @JsonPropertyDescription("The node it ran on.")
        public String node;
        @JsonPropertyDescription("The CPUs the process may run on, from its /proc/self/status.")
        public String cpuset;
        @JsonPropertyDescription("CPUs asked for the pod.")
        public String cpusRequested;
        @JsonPropertyDescription("Whether the pod holds exclusive CPUs of the requested number; absent when it was not asked to.")
        public Boolean pinned;
        @JsonPropertyDescription("The pod's IP.")
        public String podIP;
        @JsonPropertyDescription("The exclusive CPUs asked for the pod; absent when it was not pinned.")
        public Long exclusiveCpus;
        @JsonPropertyDescription("What measures this role: agent (in process) or probe (kernel), as its agent says.")
        public String measuredBy;
        @JsonPropertyDescription("The image the pod ran, as its spec names it (locally: the program).")
        public String image;
        @JsonPropertyDescription("The digest of the image the node ran (containerStatuses[].imageID), so a figure can be traced to the exact bits; set when the run is collected.")
        public String imageId;
        @JsonPropertyDescription("How far its agent's wall clock was ahead of the operator's (negative: behind), microseconds, measured before the load as NTP does (the shortest of 5 round trips); absent for a server nobody measures.")
        public Long clockOffsetMicros;
        @JsonPropertyDescription("The round trip the clock offset was measured over, microseconds: the offset is right within half of it.")
        public Long clockRoundTripMicros;

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
