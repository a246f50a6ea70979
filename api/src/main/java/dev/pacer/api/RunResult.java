package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** {@code status.result}: the figures of the measured window. Latencies in microseconds, as their names say. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RunResult {
    public ServerFigures server;
    public ClientFigures clients;
    public Window window;
    @JsonPropertyDescription("Passed, Failed (a criterion not met) or Invalid (the measurement cannot be trusted).")
    public Verdict verdict;
    @JsonPropertyDescription("Why the verdict is not Passed, one sentence each.")
    public List<String> reasons = new ArrayList<>();
    @JsonPropertyDescription("Things worth knowing that do not change the verdict.")
    public List<String> warnings = new ArrayList<>();

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ServerFigures {
        @JsonPropertyDescription("Whether the server exposed histograms; when false the other fields are absent.")
        public boolean histogramsAvailable;
        public Integer samples;
        public Long requests;
        @JsonPropertyDescription("Sum over the periods of each period's 99th percentile.")
        public Long p99IntegralMicros;
        @JsonPropertyDescription("Sum over the periods of each period's maximum.")
        public Long maxIntegralMicros;
        @JsonPropertyDescription("p99IntegralMicros with at most 2 outlier periods (P99 > 2 x mean) replaced by the mean.")
        public Long p99IntegralCorrectedMicros;
        public Long minMicros;
        public Long p50Micros;
        public Long p99Micros;
        public Long p999Micros;
        public Long maxMicros;
        @JsonPropertyDescription("Each measured period's 99th percentile, in order: the terms of p99IntegralMicros (and of a rank test between runs).")
        public List<Long> periodP99Micros;
        @JsonPropertyDescription("Each measured period's maximum, in order: the terms of maxIntegralMicros.")
        public List<Long> periodMaxMicros;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ClientFigures {
        @JsonPropertyDescription("Responses completed inside the window, all clients.")
        public Long requests;
        @JsonPropertyDescription("Offered requests per second, all clients.")
        public Double offeredRate;
        @JsonPropertyDescription("Responses per second inside the window, all clients.")
        public Double achievedRate;
        public Long errors;
        @JsonPropertyDescription("Response time from the intended send time (coordinated omission corrected).")
        public Long p50Micros;
        public Long p99Micros;
        @JsonPropertyDescription("Response time P99 from the actual send time: what a tool without coordinated-omission correction reports.")
        public Long p99UncorrectedMicros;
        public Long maxMicros;
        @JsonPropertyDescription("Worst client's send lag P99: how late requests left.")
        public Long sendLagP99Micros;
        public List<ClientFigure> perClient = new ArrayList<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ClientFigure {
        public String name;
        public Long requests;
        public Double offeredRate;
        public Double achievedRate;
        public Long errors;
        public Long p99Micros;
        @JsonPropertyDescription("Response time P99 from the actual send time (not corrected for coordinated omission).")
        public Long p99UncorrectedMicros;
        public Long maxMicros;
        public Long sendLagP99Micros;
        public Long sendLagMaxMicros;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Window {
        public Long startEpochMs;
        public Long endEpochMs;

        public Window() {
        }

        public Window(long startEpochMs, long endEpochMs) {
            this.startEpochMs = startEpochMs;
            this.endEpochMs = endEpochMs;
        }
    }
}
