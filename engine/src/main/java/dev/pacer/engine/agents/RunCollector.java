package dev.pacer.engine.agents;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.pacer.api.Measure;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.ContractJson;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.contract.ResourceUse;
import dev.pacer.engine.analysis.AnalysisInput;
import dev.pacer.engine.analysis.HistogramLogs;
import dev.pacer.engine.analysis.PeriodHistogram;
import dev.pacer.engine.plan.RunPlan;

/**
 * Fetches every histogram log, info and client run status from the agents after a run, and assembles the analysis input.
 * A server without the agent contract still yields a result: its histograms are then reported unavailable.
 */
public final class RunCollector {
    public static final String CLIENT_RESPONSE_TIME_SERIES = AgentContract.SERIES_RESPONSE_TIME;
    public static final String CLIENT_SEND_LAG_SERIES = AgentContract.SERIES_SEND_LAG;

    private RunCollector() {
    }

    /**
     * What was collected: the input of the analysis, and the raw material for the results directory.
     *
     * @param rawLogs  file name → interval log text, e.g. {@code server.hlog}, {@code client-0.responseTime.hlog}
     * @param infos    role name → {@code /pacer/v1/info}
     * @param runStatuses  client name → final {@code GET /pacer/v1/run}
     * @param placed   role name → where it ran ({@link Placed}); empty when the platform did not say
     */
    public record Collected(AnalysisInput input, Map<String, String> rawLogs, Map<String, AgentInfo> infos,
                            Map<String, LoadRunStatus> runStatuses, Map<String, Placed> placed) {
        public Collected(AnalysisInput input, Map<String, String> rawLogs, Map<String, AgentInfo> infos, Map<String, LoadRunStatus> runStatuses) {
            this(input, rawLogs, infos, runStatuses, Map.of());
        }

        /** The same with the platform's word on where each role ran. */
        public Collected placedAt(Map<String, Placed> where) {
            return new Collected(input, rawLogs, infos, runStatuses, Map.copyOf(where));
        }
    }

    /**
     * Where a role ran, as the platform says: the image (or local program), the digest of what the node ran
     * ({@code containerStatuses[].imageID}), the node, and the image's size there ({@code null} when not known).
     */
    public record Placed(String image, String imageId, String node, Long imageBytes) {
        public Placed(String image, String imageId, String node) {
            this(image, imageId, node, null);
        }

        public Placed withImageBytes(Long bytes) {
            return new Placed(image, imageId, node, bytes);
        }
    }

    /**
     * @param server the agent serving the server's histograms: pacer's agent, or the probe with {@code measure: probe};
     *               {@code null} with {@code measure: none}
     * @param probe  the probe beside the agent with {@code measure: both}, else {@code null}
     */
    public static Collected collect(RunPlan plan, AgentClient server, AgentClient probe, Map<String, AgentClient> clients,
                                    long windowStartEpochMs, long windowEndEpochMs) throws IOException {
        long periodMs = plan.samplePeriod().toMillis();
        Measure measure = plan.server().measure();
        Map<String, String> rawLogs = new LinkedHashMap<>();
        Map<String, AgentInfo> infos = new LinkedHashMap<>();
        Map<String, LoadRunStatus> runStatuses = new LinkedHashMap<>();
        Optional<List<PeriodHistogram>> serverPeriods = Optional.empty();
        Map<String, List<PeriodHistogram>> otherSeries = new LinkedHashMap<>();
        String unavailable = null;
        if (server == null) {
            unavailable = "the server is not measured (spec.server.measure: " + measure.spec() + ")";
        } else {
            try {
                infos.put(AgentContract.ROLE_SERVER, server.info());
                String log = server.histograms(null);
                rawLogs.put("server.hlog", log);
                serverPeriods = Optional.of(HistogramLogs.parse(log, periodMs));
                keepHandshakes(server, AgentContract.ROLE_SERVER, infos.get(AgentContract.ROLE_SERVER), plan, rawLogs);
                if (measure.serverAnswerer() == Measure.ServerAnswerer.PROBE) {   // the probe in the server's place: its residence too
                    otherSeries.put(AgentContract.SERIES_RESIDENCE, series(server, "server", AgentContract.SERIES_RESIDENCE, periodMs, rawLogs));
                }
            } catch (IOException e) {
                if (AgentClient.noAnswer(e)) {
                    throw e;   // silence is asked again; an agent without the histograms leaves the run without them
                }
                unavailable = e.getMessage();
            }
        }
        if (probe != null) {
            infos.put(AgentContract.ROLE_PROBE, probe.info());
            for (String name : List.of(AgentContract.SERIES_SERVICE, AgentContract.SERIES_RESIDENCE)) {
                otherSeries.put("probe." + name, series(probe, AgentContract.ROLE_PROBE, name, periodMs, rawLogs));
            }
            // the probe's own reading of the server process, kept beside the agent's for comparison
            fetchResources(probe, AgentContract.ROLE_PROBE, rawLogs);
        }
        List<AnalysisInput.ClientInput> inputs = new ArrayList<>();
        for (Map.Entry<String, AgentClient> entry : clients.entrySet()) {
            String name = entry.getKey();
            AgentClient client = entry.getValue();
            infos.put(name, client.info());
            LoadRunStatus runStatus = client.runStatus();
            runStatuses.put(name, runStatus);
            String responseLog = client.histograms(CLIENT_RESPONSE_TIME_SERIES);
            String lagLog = client.histograms(CLIENT_SEND_LAG_SERIES);
            rawLogs.put(name + "." + CLIENT_RESPONSE_TIME_SERIES + ".hlog", responseLog);
            rawLogs.put(name + "." + CLIENT_SEND_LAG_SERIES + ".hlog", lagLog);
            List<PeriodHistogram> uncorrected = List.of();
            AgentInfo info = infos.get(name);
            if (info.histogramSeries() != null && info.histogramSeries().contains(AgentContract.SERIES_RESPONSE_TIME_UNCORRECTED)) {
                String uncorrectedLog = client.histograms(AgentContract.SERIES_RESPONSE_TIME_UNCORRECTED);
                rawLogs.put(name + "." + AgentContract.SERIES_RESPONSE_TIME_UNCORRECTED + ".hlog", uncorrectedLog);
                uncorrected = HistogramLogs.parse(uncorrectedLog, periodMs);
            }
            keepHandshakes(client, name, info, plan, rawLogs);
            ResourceUse clientUse = fetchResources(client, name, rawLogs).orElse(null);
            // what the client offered is what the plan asked of it: the rate has one home, the plan, not the client's echo
            inputs.add(new AnalysisInput.ClientInput(name, plan.client(name).ratePerSecond(),
                    HistogramLogs.parse(responseLog, periodMs), HistogramLogs.parse(lagLog, periodMs),
                    runStatus.errorsOrZero(), runStatus.failure(), runStatus.unsentOrZero(), uncorrected, clientUse,
                    runStatus.resentOrZero(), runStatus.failureCauses() == null ? Map.of() : runStatus.failureCauses()));
        }
        // the load began at the clients' start, a warm-up before the window (longer, when the window moved later)
        long loadStartEpochMs = runStatuses.values().stream().map(LoadRunStatus::startAtEpochMs).filter(Objects::nonNull)
                .mapToLong(Long::longValue).min().orElse(windowStartEpochMs - plan.warmup().toMillis());
        AnalysisInput.ServerResources resources = resources(server, loadStartEpochMs, rawLogs);
        AnalysisInput input = new AnalysisInput(windowStartEpochMs, windowEndEpochMs, periodMs, serverPeriods, unavailable,
                inputs, plan.criteria(), new AnalysisInput.ServerMeasure(measure, measure.mainSeries(), otherSeries,
                probeLosses(infos.get(measure.probeBeside() ? AgentContract.ROLE_PROBE : AgentContract.ROLE_SERVER))), resources);
        return new Collected(input, rawLogs, infos, runStatuses);
    }

    /**
     * The kernel probe's counters from its info (the probe's own fields beyond the contract's), with its periods'
     * counts when it gives them; {@code null} for any other agent.
     */
    static AnalysisInput.ProbeLosses probeLosses(AgentInfo info) {
        if (info == null || !AgentInfo.MEASURED_BY_PROBE.equals(info.measuredBy())) {
            return null;
        }
        List<AnalysisInput.ProbeLosses.Period> byPeriod = null;
        if (info.extra("lossesByPeriod") instanceof List<?> periods) {
            byPeriod = periods.stream().filter(Map.class::isInstance).map(p -> (Map<?, ?>) p)
                    .map(p -> new AnalysisInput.ProbeLosses.Period(count(p, "startEpochMs"), count(p, "droppedRecords"), count(p, "lateRecords"),
                            count(p, "abandonedRequests"), count(p, "orphanWrites"), count(p, "neverReadRequests"), count(p, "readAfterPeerClosed")))
                    .toList();
        }
        return new AnalysisInput.ProbeLosses(count(info, "droppedRecords"), count(info, "lateRecords"), count(info, "abandonedRequests"),
                count(info, "orphanWrites"), count(info, "neverReadRequests"), count(info, "readAfterPeerClosed"), byPeriod);
    }

    private static long count(AgentInfo info, String field) {
        return info.extra(field) instanceof Number n ? n.longValue() : 0;
    }

    private static long count(Map<?, ?> fields, String field) {
        return fields.get(field) instanceof Number n ? n.longValue() : 0;
    }

    /**
     * The server process's resource samples from whoever measures it (the agent, or a probe that knows the server's
     * process), kept as {@code server.resources.json}. Not fatal: a figure less, with the reason.
     */
    private static AnalysisInput.ServerResources resources(AgentClient server, long loadStartEpochMs, Map<String, String> rawLogs) {
        if (server == null) {
            return new AnalysisInput.ServerResources(null, loadStartEpochMs, "the server is not measured, so nothing sampled its process");
        }
        try {
            return fetchResources(server, "server", rawLogs).map(use -> new AnalysisInput.ServerResources(use, loadStartEpochMs, null))
                    .orElseGet(() -> new AnalysisInput.ServerResources(null, loadStartEpochMs,
                            "what measures the server does not sample its process (" + server.where() + " has no " + AgentContract.RESOURCES + ")"));
        } catch (IOException e) {
            return new AnalysisInput.ServerResources(null, loadStartEpochMs, "the server's resource samples could not be read: " + e.getMessage());
        }
    }

    /** A role's {@code /pacer/v1/resources}, kept as {@code <role>.resources.json}; empty when the agent samples none. */
    private static Optional<ResourceUse> fetchResources(AgentClient agent, String role, Map<String, String> rawLogs) throws IOException {
        Optional<String> json = agent.resources();
        if (json.isEmpty()) {
            return Optional.empty();
        }
        rawLogs.put(role + ".resources.json", json.get());
        return Optional.of(ContractJson.MAPPER.readValue(json.get(), ResourceUse.class));
    }

    /** An https run: the role's handshake series, when it has one, kept as {@code <role>.handshake.hlog} (every handshake of the run). */
    private static void keepHandshakes(AgentClient agent, String role, AgentInfo info, RunPlan plan, Map<String, String> rawLogs)
            throws IOException {
        if (plan.tls() != null && info != null && info.histogramSeries() != null && info.histogramSeries().contains(AgentContract.SERIES_HANDSHAKE)) {
            rawLogs.put(role + "." + AgentContract.SERIES_HANDSHAKE + ".hlog", agent.histograms(AgentContract.SERIES_HANDSHAKE));
        }
    }

    /** One series of an agent, kept as {@code <role>.<series>.hlog}. */
    private static List<PeriodHistogram> series(AgentClient agent, String role, String series, long periodMs,
                                                Map<String, String> rawLogs) throws IOException {
        String log = agent.histograms(series);
        rawLogs.put(role + "." + series + ".hlog", log);
        return HistogramLogs.parse(log, periodMs);
    }
}
