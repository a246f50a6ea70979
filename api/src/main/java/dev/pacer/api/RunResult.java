package dev.pacer.api;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** {@code status.result}: the figures of the measured window. Latencies in microseconds, as their names say. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RunResult {
    @JsonPropertyDescription("The server's own processing times over the window, from its agent or the kernel probe.")
    public ServerFigures server;
    @JsonPropertyDescription("What the clients offered, achieved and saw.")
    public ClientFigures clients;
    @JsonPropertyDescription("The measured window: warm-up and the partial periods at its edges excluded.")
    public Window window;
    @JsonPropertyDescription("How much longer than spec.warmup the warm-up lasted, seconds: a client was still behind its schedule "
            + "as it was to end, so the window began later, once every client was on schedule; absent when it was not extended.")
    public Double warmupExtendedSeconds;
    @JsonPropertyDescription("An https run's TLS handshakes, as the clients and the server timed them; absent in cleartext.")
    public TlsFigures tls;
    @JsonPropertyDescription("Passed, Failed (a criterion not met) or Invalid (the measurement cannot be trusted).")
    public Verdict verdict;
    @JsonPropertyDescription("Why the verdict is not Passed, one sentence each.")
    public List<String> reasons = new ArrayList<>();
    @JsonPropertyDescription("True when the verdict is Invalid because a client could not keep up (its CPU saturated, it stalled, or it sent late): the run measured the client's limit, not the server's. A sweep reports such a rate as client-bound.")
    public Boolean clientBound;
    @JsonPropertyDescription("Things worth knowing that do not change the verdict.")
    public List<String> warnings = new ArrayList<>();

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ServerFigures {
        @JsonPropertyDescription("Whether the server exposed histograms; when false the other fields are absent.")
        public boolean histogramsAvailable;
        @JsonPropertyDescription("Periods measured: the terms of the integrals.")
        public Integer samples;
        @JsonPropertyDescription("Requests the server recorded in the window.")
        public Long requests;
        @JsonPropertyDescription("Sum over the periods of each period's 99th percentile, in nanoseconds truncated to microseconds (jetty-perf's P99 integral).")
        public Long p99IntegralMicros;
        @JsonPropertyDescription("Sum over the periods of each period's maximum, truncated the same way.")
        public Long maxIntegralMicros;
        @JsonPropertyDescription("p99IntegralMicros with every outlier period (P99 > 2 x the mean of the periods' P99s) counted as the mean, as jetty-perf corrects it.")
        public Long p99IntegralCorrectedMicros;
        @JsonPropertyDescription("How many periods the corrected integral replaced; jetty-perf's baseline check tolerates 2.")
        public Integer p99IntegralOutlierPeriods;
        @JsonPropertyDescription("Minimum over the window, microseconds.")
        public Long minMicros;
        @JsonPropertyDescription("Median over the window, microseconds.")
        public Long p50Micros;
        @JsonPropertyDescription("99th percentile over the window (all periods together), microseconds.")
        public Long p99Micros;
        @JsonPropertyDescription("99.9th percentile over the window, microseconds.")
        public Long p999Micros;
        @JsonPropertyDescription("Maximum over the window, microseconds.")
        public Long maxMicros;
        @JsonPropertyDescription("Each measured period's 99th percentile, in order: the terms of p99IntegralMicros (and of a rank test between runs).")
        public List<Long> periodP99Micros;
        @JsonPropertyDescription("Each measured period's maximum, in order: the terms of maxIntegralMicros.")
        public List<Long> periodMaxMicros;
        @JsonPropertyDescription("What measured the server (spec.server.measure): agent, probe, both or none.")
        public String measuredBy;
        @JsonPropertyDescription("The series these figures are of: processing (the agent: first byte parsed to response completed) or service (the kernel probe: first byte read to last byte written).")
        public String series;
        @JsonPropertyDescription("The server's other series over the same window: the probe's residence (bytes arrived to last byte written), and with measure both the probe's service and residence beside the agent's.")
        public List<SeriesFigures> otherSeries;
        @JsonPropertyDescription("What the server process used: memory before the load and in the window, CPU in the window, its image size; absent when nothing sampled the process (see footprintUnavailable).")
        public Footprint footprint;
        @JsonPropertyDescription("Why there is no footprint, when there is none.")
        public String footprintUnavailable;
        @JsonPropertyDescription("What the kernel probe could not time in the measured window (over its whole run, warm-up included, "
                + "when scope says run), when the probe measured: requests it dropped or that arrived after their period closed (missing "
                + "from the figures), requests never answered or answered to a client that had left, writes it could not pair with a "
                + "request, and the periods that had any.")
        public ProbeLosses probeLosses;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ProbeLosses {
        @JsonPropertyDescription("Requests the kernel side could not pass on: its ring was full, no socket storage, or a program skipped.")
        public Long droppedRecords;
        @JsonPropertyDescription("Requests that reached the probe after their period had closed.")
        public Long lateRecords;
        @JsonPropertyDescription("Requests read and never answered before their connection closed (client timeouts, an overloaded server).")
        public Long abandonedRequests;
        @JsonPropertyDescription("Writes on a connection with no request being read: connections opened before the probe, 100-continue.")
        public Long orphanWrites;
        @JsonPropertyDescription("Requests whose bytes arrived and were never read before their connection closed or was reset.")
        public Long neverReadRequests;
        @JsonPropertyDescription("Requests the server read after their client had closed its side of the connection: the client had "
                + "given up on them (its timeouts), and counts them as errors; those the server answered are timed.")
        public Long readAfterPeerClosed;
        @JsonPropertyDescription("Requests the probe timed in the measured window, the base of the shares above.")
        public Long timedRequests;
        @JsonPropertyDescription("window: the counts are the measured window's; run: the probe gave only counts over its whole run.")
        public String scope;
        @JsonPropertyDescription("The window's periods that had any of the counts, in order.")
        public List<PeriodLosses> periods;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class PeriodLosses {
        @JsonPropertyDescription("The period's index in the window, from 0.")
        public Integer period;
        @JsonPropertyDescription("The period's start, epoch milliseconds.")
        public Long startEpochMs;
        @JsonPropertyDescription("Records lost in this period: the ring was full, no socket storage, or a program skipped.")
        public Long droppedRecords;
        @JsonPropertyDescription("Requests of this period that reached the probe after it had closed.")
        public Long lateRecords;
        @JsonPropertyDescription("Requests read and never answered before their connection closed.")
        public Long abandonedRequests;
        @JsonPropertyDescription("Writes with no request being read.")
        public Long orphanWrites;
        @JsonPropertyDescription("Requests that arrived and were never read before their connection closed or was reset.")
        public Long neverReadRequests;
        @JsonPropertyDescription("Requests read after their client had closed its side of the connection.")
        public Long readAfterPeerClosed;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Footprint {
        @JsonPropertyDescription("Resident set size at the end of the last period before the load began (the server started and idle), bytes.")
        public Long idleRssBytes;
        @JsonPropertyDescription("Highest resident set size in the measured window, bytes (since the process started when peakRssSince is start).")
        public Long peakRssBytes;
        @JsonPropertyDescription("window: peakRssBytes is the window's own peak; start: the kernel's mark could not be reset, so it is the peak since the process started.")
        public String peakRssSince;
        @JsonPropertyDescription("CPU time (user + system) the server used in the measured window, seconds.")
        public Double cpuSeconds;
        @JsonPropertyDescription("Average CPUs busy in the window: cpuSeconds over the window's length.")
        public Double cpuCores;
        @JsonPropertyDescription("CPUs the server could run on (its cpuset).")
        public Integer cpusAllowed;
        @JsonPropertyDescription("cpuCores over cpusAllowed, 0 to 1: how saturated the server's CPUs were on average.")
        public Double cpuUtilization;
        @JsonPropertyDescription("The busiest period's CPU utilisation, 0 to 1.")
        public Double maxPeriodCpuUtilization;
        @JsonPropertyDescription("The busiest period's CPU demand over the CPUs allowed: CPU used plus the time the threads waited for a CPU (0 to 1 and beyond: above 1, threads queued for CPUs).")
        public Double maxPeriodCpuDemand;
        @JsonPropertyDescription("The longest average wait for a CPU each time a thread became runnable, over the periods, microseconds: microseconds when a CPU is free, a scheduler slice (milliseconds) behind a busy neighbour.")
        public Double maxWaitPerSliceMicros;
        @JsonPropertyDescription("Periods in which the process had no CPU left: its utilisation reached 95 %, or its threads waited 1 ms or more on average each time they became runnable (starved by a neighbour).")
        public Integer saturatedPeriods;
        @JsonPropertyDescription("The longest stall of the process in the window (its clock watched at least every 1 ms, a client's at its wake-up interval in whole ms when that is longer; GC, safepoints, descheduling), milliseconds.")
        public Double maxHiccupMillis;
        @JsonPropertyDescription("Server CPU time per request recorded in the window, microseconds.")
        public Double cpuMicrosPerRequest;
        @JsonPropertyDescription("Time the JVM's collectors reported in the window (stop-the-world collectors: pauses), milliseconds; absent for a process that is not a JVM.")
        public Long gcPauseMillis;
        @JsonPropertyDescription("Collections in the window; absent for a process that is not a JVM.")
        public Long gcCount;
        @JsonPropertyDescription("CPU time the JVM's just-in-time compiler threads ran in the window, seconds: the process's own threads, taking its CPUs from its work; absent for a process that is not a JVM.")
        public Double jitCpuSeconds;
        @JsonPropertyDescription("CPU time other processes and the kernel's interrupt work used on the CPUs this process may run on, in the window, seconds (those CPUs' busy time less the process's own, in 10 ms ticks; a hypervisor's steal is not counted); meaningful when it is pinned.")
        public Double neighbourCpuSeconds;
        @JsonPropertyDescription("Size of the image on its node (the node's image list), bytes; absent locally, for clients, and where the node does not say.")
        public Long imageBytes;
    }

    /**
     * Handshakes over the whole run, warm-up included (kept connections shake hands before the window), and their rate in
     * the window. A handshake is timed from its TCP connection to the handshake's end.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class TlsFigures {
        @JsonPropertyDescription("Handshakes the clients completed over the run, all clients.")
        public Long clientHandshakes;
        @JsonPropertyDescription("Handshakes the server's agent saw completed over the run; absent when the server does not tell (loom, "
                + "a server without pacer's agent).")
        public Long serverHandshakes;
        @JsonPropertyDescription("Client handshakes per second inside the window: new connections (spec.tls.requestsPerConnection).")
        public Double handshakesPerSecond;
        @JsonPropertyDescription("Handshake time on the clients, TCP connected to handshake done, median, microseconds.")
        public Long clientHandshakeP50Micros;
        @JsonPropertyDescription("Handshake time on the clients, 99th percentile, microseconds.")
        public Long clientHandshakeP99Micros;
        @JsonPropertyDescription("Handshake time on the clients, maximum, microseconds.")
        public Long clientHandshakeMaxMicros;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class SeriesFigures {
        @JsonPropertyDescription("The series: residence, probe.service or probe.residence.")
        public String name;
        @JsonPropertyDescription("Requests in the window.")
        public Long requests;
        @JsonPropertyDescription("Median over the window, microseconds.")
        public Long p50Micros;
        @JsonPropertyDescription("99th percentile over the window, microseconds.")
        public Long p99Micros;
        @JsonPropertyDescription("Maximum over the window, microseconds.")
        public Long maxMicros;
        @JsonPropertyDescription("Sum over the periods of each period's 99th percentile, microseconds.")
        public Long p99IntegralMicros;
        @JsonPropertyDescription("Sum over the periods of each period's maximum, microseconds.")
        public Long maxIntegralMicros;
        @JsonPropertyDescription("Each measured period's 99th percentile, in order: the terms of p99IntegralMicros (and of a rank test between runs).")
        public List<Long> periodP99Micros;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ClientFigures {
        @JsonPropertyDescription("Responses completed inside the window, all clients.")
        public Long requests;
        @JsonPropertyDescription("Offered requests per second, all clients.")
        public Double offeredRate;
        @JsonPropertyDescription("Responses per second inside the window, all clients.")
        public Double achievedRate;
        @JsonPropertyDescription("Failed requests and error statuses, all clients, over the run.")
        public Long errors;
        @JsonPropertyDescription("Times a request went out once more after the server refused it unprocessed (HTTP/2 GOAWAY: streams above its last stream id), all clients, over the run; absent when none. Each request counts once in requests; its wait for another connection is in its response time.")
        public Long resentRequests;
        @JsonPropertyDescription("Response time from the intended send time (coordinated omission corrected), median, microseconds.")
        public Long p50Micros;
        @JsonPropertyDescription("Response time from the intended send time, 99th percentile, microseconds.")
        public Long p99Micros;
        @JsonPropertyDescription("Response time P99 from the actual send time: what a tool without coordinated-omission correction reports.")
        public Long p99UncorrectedMicros;
        @JsonPropertyDescription("Sum over the periods of the clients' P99 (all clients' responses of the period together), from the intended send time, truncated to microseconds as the server's.")
        public Long p99IntegralMicros;
        @JsonPropertyDescription("The same from the actual send time: jetty-perf's probe client integral, not corrected for coordinated omission.")
        public Long p99UncorrectedIntegralMicros;
        @JsonPropertyDescription("Response time from the intended send time, maximum, microseconds.")
        public Long maxMicros;
        @JsonPropertyDescription("Worst client's send lag P99: how late requests left.")
        public Long sendLagP99Micros;
        @JsonPropertyDescription("Each measured period's P99 from the intended send time (all clients' responses of the period together), in order: the terms of p99IntegralMicros.")
        public List<Long> periodP99Micros;
        @JsonPropertyDescription("Each measured period's worst client send lag P99, in order, the same periods as periodP99Micros: how much of each period's P99 was the clients' own lateness.")
        public List<Long> periodSendLagP99Micros;
        @JsonPropertyDescription("The same figures for each client.")
        public List<ClientFigure> perClient = new ArrayList<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ClientFigure {
        @JsonPropertyDescription("The client, e.g. client-0.")
        public String name;
        @JsonPropertyDescription("Responses completed inside the window.")
        public Long requests;
        @JsonPropertyDescription("Requests per second it offered.")
        public Double offeredRate;
        @JsonPropertyDescription("Responses per second inside the window.")
        public Double achievedRate;
        @JsonPropertyDescription("Failed requests and error statuses over the run.")
        public Long errors;
        @JsonPropertyDescription("Times a request went out once more after the server refused it unprocessed (HTTP/2 GOAWAY), over the run; absent when none.")
        public Long resentRequests;
        @JsonPropertyDescription("Its requests that got no response (timeouts, I/O failures) by cause, the exception's type and message, over the run (result.json lists the most frequent first; a resource's status may sort them by name); up to 8 causes, the rest under 'other causes'; absent when none.")
        public Map<String, Long> failureCauses;
        @JsonPropertyDescription("Response time from the intended send time, 99th percentile, microseconds.")
        public Long p99Micros;
        @JsonPropertyDescription("Response time P99 from the actual send time (not corrected for coordinated omission).")
        public Long p99UncorrectedMicros;
        @JsonPropertyDescription("Sum over the periods of its P99 from the intended send time, truncated to microseconds.")
        public Long p99IntegralMicros;
        @JsonPropertyDescription("Sum over the periods of its P99 from the actual send time (jetty-perf's client integral).")
        public Long p99UncorrectedIntegralMicros;
        @JsonPropertyDescription("Response time from the intended send time, maximum, microseconds.")
        public Long maxMicros;
        @JsonPropertyDescription("How late its requests left, 99th percentile, microseconds.")
        public Long sendLagP99Micros;
        @JsonPropertyDescription("How late its requests left, maximum, microseconds.")
        public Long sendLagMaxMicros;
        @JsonPropertyDescription("What the client process used in the window: CPU, CPU demand and its saturated periods (a saturated client makes the run Invalid), the longest stall, memory.")
        public Footprint footprint;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Window {
        @JsonPropertyDescription("Start of the window, epoch milliseconds.")
        public Long startEpochMs;
        @JsonPropertyDescription("End of the window, epoch milliseconds.")
        public Long endEpochMs;
        @JsonPropertyDescription("Start of the window (RFC 3339).")
        public String start;
        @JsonPropertyDescription("End of the window (RFC 3339).")
        public String end;

        public Window() {
        }

        public Window(long startEpochMs, long endEpochMs) {
            this.startEpochMs = startEpochMs;
            this.endEpochMs = endEpochMs;
            this.start = Instant.ofEpochMilli(startEpochMs).toString();
            this.end = Instant.ofEpochMilli(endEpochMs).toString();
        }
    }
}
