package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.Condition;

/** Where a suite is, its runs, and per server the figures the reference reports give. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkSuiteStatus {
    @JsonPropertyDescription("Pending, Running, Succeeded (every run done; figures below) or Failed (the suite could not go on).")
    public String phase;
    @JsonPropertyDescription("Runs finished.")
    public Integer runsDone;
    @JsonPropertyDescription("The run under way, if any.")
    public String currentRun;
    @JsonPropertyDescription("Every run of the suite in the order run.")
    public List<SuiteRun> runs = new ArrayList<>();
    @JsonPropertyDescription("Per server: integrals over repetitions, or the sustained rate of a sweep.")
    public List<ServerSummary> servers = new ArrayList<>();
    @JsonPropertyDescription("Each server against the first, in a sentence: how much faster or slower, and whether that exceeds run-to-run noise.")
    public List<String> comparisons = new ArrayList<>();
    @JsonPropertyDescription("The server series every figure of the servers and every comparison is of: processing (pacer's agent) or service "
            + "or residence (the kernel probe): spec.comparison.series, or the one the servers' measures give.")
    public String comparisonSeries;
    @JsonPropertyDescription("Ready, Complete, Failed.")
    @SchemaFrom(type = ConditionSchema[].class)
    public List<Condition> conditions = new ArrayList<>();
    @JsonPropertyDescription("The generation of the spec this status is of.")
    public Long observedGeneration;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class SuiteRun {
        @JsonPropertyDescription("The BenchmarkRun.")
        public String name;
        @JsonPropertyDescription("The server's name in the suite.")
        public String server;
        @JsonPropertyDescription("Requests per second per client.")
        public Long ratePerClient;
        @JsonPropertyDescription("1 to repetitions.")
        public Integer repetition;
        @JsonPropertyDescription("The run's phase when last seen.")
        public String phase;
        @JsonPropertyDescription("The run's verdict.")
        public String verdict;
        @JsonPropertyDescription("Sweep: whether this rate passed the sweep's criteria.")
        public Boolean passed;
        @JsonPropertyDescription("Why the rate did not pass, or why the run failed.")
        public String reason;
        @JsonPropertyDescription("Sweep: what bound a rate that did not pass: client (the clients could not apply it, or their own send lag carried half their p99; not the server's limit), server CPU, latency limit (the server's part carried half the clients' p99), latency outside the server (neither part did; not the server's limit), errors, rate not answered, invalid measurement or run failed.")
        public String boundBy;
        @JsonPropertyDescription("The server's P99 integral, microseconds.")
        public Long p99IntegralMicros;
        @JsonPropertyDescription("The server's max integral, microseconds.")
        public Long maxIntegralMicros;
        @JsonPropertyDescription("The clients' p50 from intended send time, microseconds.")
        public Long clientP50Micros;
        @JsonPropertyDescription("The clients' p99 from intended send time, microseconds.")
        public Long clientP99Micros;
        @JsonPropertyDescription("Responses per second in the window, all clients.")
        public Double achievedRate;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ServerSummary {
        @JsonPropertyDescription("The server's name in the suite.")
        public String name;
        @JsonPropertyDescription("Fixed rates: the rate per client these figures are of.")
        public Long ratePerClient;
        @JsonPropertyDescription("Fixed rates: runs that gave figures, of the repetitions.")
        public Integer repetitions;
        @JsonPropertyDescription("Fixed rates: the median P99 integral over the repetitions, microseconds.")
        public Long p99IntegralMedianMicros;
        @JsonPropertyDescription("Fixed rates: the interval around that median, lower bound, microseconds.")
        public Long p99IntegralLowMicros;
        @JsonPropertyDescription("Fixed rates: the interval around that median, upper bound, microseconds.")
        public Long p99IntegralHighMicros;
        @JsonPropertyDescription("Fixed rates: the median max integral, microseconds.")
        public Long maxIntegralMedianMicros;
        @JsonPropertyDescription("The confidence of the interval: 95 % from 6 repetitions on (order statistics), less below (min to max of n runs covers the median with 1 - 2^(1-n)).")
        public Double intervalConfidence;
        @JsonPropertyDescription("Sweep: the highest rate per client that passed, requests per second.")
        public Long sustainedRatePerClient;
        @JsonPropertyDescription("Sweep: true when the lowest rate that did not pass was client-bound: the clients, not the server, were the limit, so the sustained rate is a lower bound (at least), and absent when no rate passed.")
        public Boolean clientBound;
        @JsonPropertyDescription("Sweep with spec.sweep.confirm: how the sustained rate was certified, or why it moved down (its longer run failed), in a sentence.")
        public String confirmation;
        @JsonPropertyDescription("Sweep: the clients' p50 at that rate, microseconds.")
        public Long p50AtSustainedMicros;
        @JsonPropertyDescription("Sweep: the clients' p99 at that rate, microseconds.")
        public Long p99AtSustainedMicros;
        @JsonPropertyDescription("Sweep: the server's own p99 at that rate (its agent's processing time, or the kernel probe's service time), microseconds.")
        public Long serverP99AtSustainedMicros;
        @JsonPropertyDescription("Sweep: what measured the server at that rate: agent, probe, both or none.")
        public String serverMeasuredBy;
        @JsonPropertyDescription("Sweep: the kernel probe's residence p99 at that rate (bytes arrived to last byte written), microseconds; absent without the probe.")
        public Long residenceP99AtSustainedMicros;
        @JsonPropertyDescription("Sweep: what bound the lowest rate that did not pass (as runs[].boundBy); absent when every rate passed.")
        public String boundBy;
        @JsonPropertyDescription("Sweep: where the clients' p99 went at that rate, each part's p99 over the clients' p99: their own send lag, the "
                + "server's part (the probe's residence, else the server's own series) and what neither carries (between: the network, the "
                + "clients reading), e.g. 'send lag 20 % · server residence 15 % · between 65 %'; then, per measured period, which part carried "
                + "each period over the sweep's limit (half its p99 or more), e.g. '; 4 of 15 periods over 10.000 ms: send lag 1 · server residence 3 · between 0'. "
                + "A latency bound is the server's only when its part carried the most of those periods and at least half (over the window, half "
                + "its p99, for a run without per-period figures).")
        public String p99PartsAtBound;
        @JsonPropertyDescription("Footprint: the server's image on its node, bytes; absent locally.")
        public Long imageBytes;
        @JsonPropertyDescription("Footprint: median resident memory before the load, bytes (fixed rates: over the repetitions; sweep: the run at the sustained rate).")
        public Long idleRssBytes;
        @JsonPropertyDescription("Footprint: median peak resident memory in the window, bytes.")
        public Long peakRssBytes;
        @JsonPropertyDescription("Footprint: median server CPU time per request, microseconds.")
        public Double cpuMicrosPerRequest;
        @JsonPropertyDescription("Footprint: median CPUs busy in the window.")
        public Double cpuCores;
    }
}
