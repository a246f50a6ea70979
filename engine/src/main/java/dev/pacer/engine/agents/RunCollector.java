package dev.pacer.engine.agents;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.RunReport;
import dev.pacer.engine.analysis.AnalysisInput;
import dev.pacer.engine.analysis.HistogramLogs;
import dev.pacer.engine.analysis.PeriodHistogram;
import dev.pacer.engine.plan.RunPlan;

/**
 * Fetches every histogram log, info and client report from the agents after a run, and assembles the analysis input.
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
     * @param reports  client name → final {@code GET /pacer/v1/run}
     */
    public record Collected(AnalysisInput input, Map<String, String> rawLogs, Map<String, AgentInfo> infos,
                            Map<String, RunReport> reports) {
    }

    public static Collected collect(RunPlan plan, AgentClient server, Map<String, AgentClient> clients,
                                    long windowStartEpochMs, long windowEndEpochMs) throws IOException {
        long periodMs = plan.samplePeriod().toMillis();
        Map<String, String> rawLogs = new LinkedHashMap<>();
        Map<String, AgentInfo> infos = new LinkedHashMap<>();
        Map<String, RunReport> reports = new LinkedHashMap<>();
        Optional<List<PeriodHistogram>> serverPeriods = Optional.empty();
        String unavailable = null;
        try {
            infos.put("server", server.info());
            String log = server.histograms(null);
            rawLogs.put("server.hlog", log);
            serverPeriods = Optional.of(HistogramLogs.parse(log, periodMs));
        } catch (IOException e) {
            unavailable = e.getMessage();
        }
        List<AnalysisInput.ClientInput> inputs = new ArrayList<>();
        for (Map.Entry<String, AgentClient> entry : clients.entrySet()) {
            String name = entry.getKey();
            AgentClient client = entry.getValue();
            infos.put(name, client.info());
            RunReport report = client.runStatus();
            reports.put(name, report);
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
            inputs.add(new AnalysisInput.ClientInput(name, report.offeredRateOrZero(),
                    HistogramLogs.parse(responseLog, periodMs), HistogramLogs.parse(lagLog, periodMs),
                    report.errorsOrZero(), report.failure(), report.unsentOrZero(), uncorrected));
        }
        AnalysisInput input = new AnalysisInput(windowStartEpochMs, windowEndEpochMs, periodMs, serverPeriods, unavailable,
                inputs, plan.criteria());
        return new Collected(input, rawLogs, infos, reports);
    }
}
