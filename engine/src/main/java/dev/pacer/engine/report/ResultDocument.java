package dev.pacer.engine.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.RunResult;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.analysis.PercentileSpectrum;
import dev.pacer.engine.analysis.PeriodPoint;
import dev.pacer.engine.json.DocumentJson;
import dev.pacer.engine.plan.RunPlan;

/**
 * {@code result.json} of a results directory, and the one place a run's result is assembled: {@code status.result} of
 * a BenchmarkRun is this document's {@code result} (docs/design.md, "Results"). The file adds what a status cannot
 * hold: the per-period series of every role, the clients' final run statuses and every agent's info.
 * <pre>
 * { "run": name, "load": "2x500", "server": {image, args, labels, cpuset}, "samplePeriodMs": 1000,
 *   "result": { … the shape of status.result … },
 *   "window": {startEpochMs, endEpochMs},
 *   "periods": [ {startEpochMs, server: {count,minMicros,p50Micros,p99Micros,maxMicros},
 *                 clients: {client-0: {count,p50Micros,p99Micros,p999Micros,maxMicros,sendLagP99Micros}}} … ],
 *   "clientRuns": {client-0: final GET /pacer/v1/run}, "agents": {server: info, client-0: info},
 *   "spectra": {server: [{percentile, valueMicros} …], client-0: […]},
 *   "manifest": {pacerVersion, plan: the effective spec, roles: {server: {image, imageId, node, kernel, cpuModel, …}}} }
 * </pre>
 * Beside it: every raw interval log ({@code *.hlog}), the window's percentile distributions ({@code *.hgrm}),
 * {@code report.html} and the processes' logs.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ResultDocument(String run, String load, Map<String, Object> server, long samplePeriodMs,
                             RunResult result, RunResult.Window window, List<PeriodPoint> periods,
                             Map<String, LoadRunStatus> clientRuns, Map<String, AgentInfo> agents,
                             List<String> notes, Map<String, List<PercentileSpectrum.Point>> spectra, RunManifest manifest) {
    public static final String FILE_NAME = "result.json";

    /** The document of a collected and analysed run; {@code notes} are things worth knowing that change no figure. */
    public static ResultDocument of(RunPlan plan, RunCollector.Collected collected, Analysis.Outcome outcome, List<String> notes) {
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("image", plan.server().image());
        server.put("args", plan.server().args());
        server.put("labels", plan.server().labels());
        AgentInfo serverInfo = collected.infos().get("server");
        if (serverInfo != null && serverInfo.cpuset() != null) {
            server.put("cpuset", serverInfo.cpuset());
        }
        imageSize(outcome.result(), collected.placed().get("server"));
        Map<String, List<PercentileSpectrum.Point>> spectra = new LinkedHashMap<>();
        PercentileSpectrum.ofRun(collected.input()).forEach((role, s) -> spectra.put(role, s.points()));
        return new ResultDocument(plan.runName(), plan.load(), server, plan.samplePeriod().toMillis(), outcome.result(),
                outcome.result().window, outcome.periods(), collected.runStatuses(), collected.infos(), List.copyOf(notes), spectra,
                RunManifest.of(plan, collected));
    }

    /** The server image's size, as its node listed it, joins the footprint (even a footprint that is otherwise unmeasured). */
    private static void imageSize(RunResult result, RunCollector.Placed server) {
        if (server == null || server.imageBytes() == null || result.server == null) {
            return;
        }
        if (result.server.footprint == null) {
            result.server.footprint = new RunResult.Footprint();
        }
        result.server.footprint.imageBytes = server.imageBytes();
    }

    /**
     * HdrHistogram's percentile distribution of every role over the window, by file name ({@code server.hgrm},
     * {@code client-0.responseTime.hgrm}), values in microseconds: for HdrHistogram's own plotter and tools.
     */
    public static Map<String, String> percentileDistributions(RunCollector.Collected collected) {
        Map<String, String> files = new LinkedHashMap<>();
        PercentileSpectrum.ofRun(collected.input()).forEach((role, s) ->
                files.put(role + (role.startsWith("server") ? "" : "." + RunCollector.CLIENT_RESPONSE_TIME_SERIES) + ".hgrm", s.hgrm()));
        return files;
    }

    /** The same document with these notes added. */
    public ResultDocument withNotes(List<String> more) {
        List<String> all = new ArrayList<>(notes == null ? List.of() : notes);
        all.addAll(more);
        return new ResultDocument(run, load, server, samplePeriodMs, result, window, periods, clientRuns, agents, List.copyOf(all), spectra,
                manifest);
    }

    public void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        DocumentJson.MAPPER.writeValue(directory.resolve(FILE_NAME).toFile(), this);
    }

    /**
     * A finished BenchmarkRun's status as a result (from {@code kubectl get br NAME -o yaml}): its figures and the
     * per-period server P99s and maxima; client per-period figures are not in the status.
     */
    public static ResultDocument fromBenchmarkRun(BenchmarkRun run, String source) throws IOException {
        if (run.getStatus() == null || run.getStatus().result == null) {
            throw new IOException(source + ": BenchmarkRun " + run.getMetadata().getName() + " has no status.result"
                    + (run.getStatus() == null || run.getStatus().phase == null ? "" : " (phase " + run.getStatus().phase + ")")
                    + ": compare runs that Succeeded");
        }
        RunResult result = run.getStatus().result;
        List<PeriodPoint> periods = new ArrayList<>();
        if (result.server != null && result.server.periodP99Micros != null && result.window != null) {
            long periodMs = result.server.periodP99Micros.isEmpty() ? 0
                    : (result.window.endEpochMs - result.window.startEpochMs) / result.server.periodP99Micros.size();
            for (int i = 0; i < result.server.periodP99Micros.size(); i++) {
                long max = result.server.periodMaxMicros == null ? 0 : result.server.periodMaxMicros.get(i);
                periods.add(new PeriodPoint(result.window.startEpochMs + i * periodMs,
                        new PeriodPoint.Stats(0, 0, 0, result.server.periodP99Micros.get(i), max), Map.of()));
            }
        }
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("image", run.getSpec().server == null ? null : run.getSpec().server.image);
        server.put("labels", run.getSpec().server == null ? Map.of() : run.getSpec().server.labels);
        return new ResultDocument(run.getMetadata().getName(), run.getStatus().load, server, 0, result, result.window, periods,
                Map.of(), Map.of(), List.of("from the status of BenchmarkRun " + run.getMetadata().getNamespace() + "/" + run.getMetadata().getName()),
                Map.of(), null);
    }

    public static ResultDocument read(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            throw new IOException(directory + " is not a results directory: no " + FILE_NAME);
        }
        return DocumentJson.MAPPER.readValue(file.toFile(), ResultDocument.class);
    }
}
