package dev.pacer.engine.analysis;

import static dev.pacer.engine.analysis.WindowHistograms.NANOS_PER_MILLI;
import static dev.pacer.engine.analysis.WindowHistograms.inWindow;
import static dev.pacer.engine.analysis.WindowHistograms.micros;
import static dev.pacer.engine.analysis.WindowHistograms.newHistogram;
import static dev.pacer.engine.analysis.WindowHistograms.percentile;
import static dev.pacer.engine.analysis.WindowHistograms.stats;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import dev.pacer.api.BenchmarkRunValidation;
import dev.pacer.api.RunResult;
import dev.pacer.contract.AgentContract;
import org.HdrHistogram.Histogram;

/**
 * The server's figures over the window: its main series' integrals and percentiles (Jetty's P99 and max integrals), its
 * other series (the probe's), and what its process used; what they make untrustworthy or fail goes to the findings.
 */
final class ServerAnalysis {
    /**
     * @param figures     {@code result.server}
     * @param byPeriod    the main series per period start
     * @param otherByPeriod the other series per period start, by name
     * @param usageByPeriod what the server process used per period start
     */
    record Outcome(RunResult.ServerFigures figures, Map<Long, PeriodPoint.Stats> byPeriod,
                   Map<Long, Map<String, PeriodPoint.Stats>> otherByPeriod, Map<Long, PeriodPoint.Usage> usageByPeriod) {
    }

    private ServerAnalysis() {
    }

    /**
     * jetty-perf's baseline check as a criterion: the P99 integral within the margin of the expected value, or, with at
     * most the tolerated outlier periods, the integral with those periods counted as the mean; else the run fails,
     * naming the figure, the expected value and the margin (Integrals.BaselineCheck, jetty-perf's rule).
     */
    private static void expectedIntegral(BenchmarkRunValidation.ExpectedP99Integral expected, List<Long> p99Nanos, Findings findings) {
        long expectedMicros = expected.value().toNanos() / 1000;
        Integrals.BaselineCheck check = Integrals.BaselineCheck.of(p99Nanos, expectedMicros, expected.margin() * 100, expected.toleratedOutliers());
        if (!check.passed()) {
            findings.failed.add(String.format(Locale.ROOT, "server P99 integral %.3f ms (corrected %.3f ms, %d outlier period(s), %d tolerated) "
                            + "lies outside criteria.expectP99Integral %.3f ms ± %s %%: %s", check.integralMicros() / 1000.0,
                    check.correctedMicros() / 1000.0, check.outliers(), expected.toleratedOutliers(), expectedMicros / 1000.0,
                    stripZeros(expected.margin() * 100), check.message()));
        }
    }

    private static String stripZeros(double value) {
        return java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    static Outcome of(AnalysisInput input, int expectedPeriods, Findings findings) {
        RunResult.ServerFigures server = new RunResult.ServerFigures();
        AnalysisInput.ServerMeasure measure = input.serverMeasure();
        server.measuredBy = measure.measuredBy().spec();
        Map<Long, PeriodPoint.Stats> serverByPeriod = mainSeries(server, input, expectedPeriods, findings);
        Map<Long, PeriodPoint.Usage> usageByPeriod = footprint(server, input, findings);
        Map<Long, Map<String, PeriodPoint.Stats>> otherByPeriod = otherSeries(server, input);
        judgeProbeLosses(input, server, findings);
        compareAgentWithProbe(measure, serverByPeriod, otherByPeriod, findings);
        return new Outcome(server, serverByPeriod, otherByPeriod, usageByPeriod);
    }

    /** The series the figures are of (the agent's processing, or the probe's service): Jetty's integrals, the percentiles, the criteria. */
    private static Map<Long, PeriodPoint.Stats> mainSeries(RunResult.ServerFigures server, AnalysisInput input, int expectedPeriods,
                                                           Findings findings) {
        Map<Long, PeriodPoint.Stats> serverByPeriod = new TreeMap<>();
        AnalysisInput.ServerMeasure measure = input.serverMeasure();
        if (input.serverPeriods().isEmpty() && measure.none()) {
            server.histogramsAvailable = false;
            findings.warnings.add("the server is not measured (spec.server.measure: none): no server histograms; the verdict rests on the clients");
            return serverByPeriod;
        }
        if (input.serverPeriods().isEmpty()) {
            server.histogramsAvailable = false;
            findings.invalid.add("server histograms unavailable" + (input.serverUnavailableReason() == null ? "" : ": " + input.serverUnavailableReason())
                    + "; the server-side figures cannot be computed");
            return serverByPeriod;
        }
        server.histogramsAvailable = true;
        server.series = measure.series();
        List<PeriodHistogram> periods = inWindow(input.serverPeriods().get(), input);
        Histogram total = newHistogram(periods);
        List<Long> p99s = new ArrayList<>();
        List<Long> maxes = new ArrayList<>();
        for (PeriodHistogram period : periods) {
            Histogram h = period.histogram();
            total.add(h);
            long p99 = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99);
            long max = h.getTotalCount() == 0 ? 0 : h.getMaxValue();
            p99s.add(p99);
            maxes.add(max);
            serverByPeriod.put(period.startEpochMs(), stats(h));
        }
        server.samples = periods.size();
        server.requests = total.getTotalCount();
        server.p99IntegralMicros = Integrals.integralMicros(p99s);
        server.maxIntegralMicros = Integrals.integralMicros(maxes);
        Integrals.Corrected corrected = Integrals.corrected(p99s);
        server.p99IntegralCorrectedMicros = corrected.micros();
        server.p99IntegralOutlierPeriods = corrected.outliers();
        server.periodP99Micros = p99s.stream().map(Integrals::toMicros).toList();
        server.periodMaxMicros = maxes.stream().map(Integrals::toMicros).toList();
        if (total.getTotalCount() > 0) {
            server.minMicros = micros(total.getMinValue());
            server.p50Micros = micros(total.getValueAtPercentile(50));
            server.p99Micros = micros(total.getValueAtPercentile(99));
            server.p999Micros = micros(total.getValueAtPercentile(99.9));
            server.maxMicros = micros(total.getMaxValue());
        }
        if (periods.size() < expectedPeriods) {
            findings.invalid.add(String.format(Locale.ROOT, "server: %d of %d sample periods present in the measured window",
                    periods.size(), expectedPeriods));
        }
        if (total.getTotalCount() == 0) {
            findings.invalid.add("server: recorded no request in the measured window");
        }
        input.criteria().expectP99Integral().ifPresent(expected -> expectedIntegral(expected, p99s, findings));
        input.criteria().maxP99().ifPresent(limit -> {
            if (total.getTotalCount() > 0 && total.getValueAtPercentile(99) > limit.toNanos()) {
                findings.failed.add(String.format(Locale.ROOT, "server P99 %.3f ms exceeds criteria.maxP99 %.3f ms",
                        total.getValueAtPercentile(99) / NANOS_PER_MILLI, limit.toNanos() / NANOS_PER_MILLI));
            }
        });
        return serverByPeriod;
    }

    /** What the server process used over the window, per period; a saturated server is said, its latency including its queueing. */
    private static Map<Long, PeriodPoint.Usage> footprint(RunResult.ServerFigures server, AnalysisInput input, Findings findings) {
        AnalysisInput.ServerResources resources = input.serverResources();
        if (resources.use() == null) {
            server.footprintUnavailable = resources.unavailable();
            return Map.of();
        }
        Footprint.Outcome footprint = Footprint.of(new Footprint.Input(resources.use(), resources.loadStartEpochMs(),
                input.windowStartEpochMs(), input.windowEndEpochMs(), server.requests));
        server.footprint = footprint.figures();
        if (footprint.figures().saturatedPeriods != null && footprint.figures().saturatedPeriods > 0) {
            findings.warnings.add(String.format(Locale.ROOT, "the server's CPUs were saturated (at least %.0f %% of its %d CPUs busy) "
                    + "in %d of %d periods: it ran at its capacity there, so its latency includes queueing for CPU",
                    Footprint.SATURATED_UTILIZATION * 100, footprint.figures().cpusAllowed, footprint.figures().saturatedPeriods,
                    footprint.byPeriod().size()));
        }
        return footprint.byPeriod();
    }

    /** The other series (the probe's beside the agent's), each with its own figures, per period by name. */
    private static Map<Long, Map<String, PeriodPoint.Stats>> otherSeries(RunResult.ServerFigures server, AnalysisInput input) {
        Map<Long, Map<String, PeriodPoint.Stats>> otherByPeriod = new TreeMap<>();
        for (Map.Entry<String, List<PeriodHistogram>> other : input.serverMeasure().otherSeries().entrySet()) {
            List<PeriodHistogram> periods = inWindow(other.getValue(), input);
            Histogram total = newHistogram(periods);
            List<Long> p99s = new ArrayList<>();
            List<Long> maxes = new ArrayList<>();
            for (PeriodHistogram period : periods) {
                total.add(period.histogram());
                p99s.add(percentile(period.histogram(), 99));
                maxes.add(period.histogram().getTotalCount() == 0 ? 0 : period.histogram().getMaxValue());
                otherByPeriod.computeIfAbsent(period.startEpochMs(), k -> new LinkedHashMap<>()).put(other.getKey(), stats(period.histogram()));
            }
            RunResult.SeriesFigures figures = new RunResult.SeriesFigures();
            figures.name = other.getKey();
            figures.requests = total.getTotalCount();
            figures.p50Micros = micros(percentile(total, 50));
            figures.p99Micros = micros(percentile(total, 99));
            figures.maxMicros = micros(total.getTotalCount() == 0 ? 0 : total.getMaxValue());
            figures.p99IntegralMicros = Integrals.integralMicros(p99s);
            figures.maxIntegralMicros = Integrals.integralMicros(maxes);
            figures.periodP99Micros = p99s.stream().map(Integrals::toMicros).toList();
            if (server.otherSeries == null) {
                server.otherSeries = new ArrayList<>();
            }
            server.otherSeries.add(figures);
        }
        return otherByPeriod;
    }

    /** The agent's and the probe's counts of a period may differ by this share (a request on a period's edge), plus one. */
    static final double COUNT_TOLERANCE = 0.01;
    /** The probe's median may exceed the agent's by this factor plus {@value #MEDIAN_SLACK_MICROS} µs (it times more). */
    static final double MEDIAN_FACTOR = 2.0;
    static final long MEDIAN_SLACK_MICROS = 100;

    /**
     * With {@code measure: both} the agent and the probe time the same requests: each period's count must agree within
     * {@value #COUNT_TOLERANCE} (plus one), and the probe's median (first byte read to last written) lie between the
     * agent's (parsed to completed) and {@value #MEDIAN_FACTOR} × it plus {@value #MEDIAN_SLACK_MICROS} µs. Periods that
     * do not are a warning naming them: one of the two did not see what the other saw.
     */
    private static void compareAgentWithProbe(AnalysisInput.ServerMeasure measure, Map<Long, PeriodPoint.Stats> agent,
                                              Map<Long, Map<String, PeriodPoint.Stats>> others, Findings findings) {
        if (!measure.measuredBy().probeBeside()) {
            return;
        }
        String probeSeries = "probe." + AgentContract.SERIES_SERVICE;
        List<String> counts = new ArrayList<>();
        List<String> medians = new ArrayList<>();
        for (Map.Entry<Long, PeriodPoint.Stats> period : agent.entrySet()) {
            PeriodPoint.Stats probe = others.getOrDefault(period.getKey(), Map.of()).get(probeSeries);
            String when = Instant.ofEpochMilli(period.getKey()).toString();
            if (probe == null) {
                counts.add(when + " (the probe has no period)");
                continue;
            }
            long a = period.getValue().count();
            if (Math.abs(a - probe.count()) > COUNT_TOLERANCE * a + 1) {
                counts.add(String.format(Locale.ROOT, "%s (agent %d, probe %d)", when, a, probe.count()));
            }
            long agentP50 = period.getValue().p50Micros();
            if (a > 0 && probe.count() > 0 && (probe.p50Micros() + 1 < agentP50
                    || probe.p50Micros() > MEDIAN_FACTOR * agentP50 + MEDIAN_SLACK_MICROS)) {
                medians.add(String.format(Locale.ROOT, "%s (agent %d µs, probe %d µs)", when, agentP50, probe.p50Micros()));
            }
        }
        if (!counts.isEmpty()) {
            findings.warnings.add("the agent and the kernel probe counted different requests in " + counts.size() + " period(s): "
                    + String.join(", ", counts.subList(0, Math.min(5, counts.size()))) + (counts.size() > 5 ? ", …" : "")
                    + "; one of them did not see every request");
        }
        if (!medians.isEmpty()) {
            findings.warnings.add("the kernel probe's median lies outside [the agent's, " + MEDIAN_FACTOR + " × it + " + MEDIAN_SLACK_MICROS
                    + " µs] in " + medians.size() + " period(s): " + String.join(", ", medians.subList(0, Math.min(5, medians.size())))
                    + (medians.size() > 5 ? ", …" : "") + "; they time different spans of the same requests, but not that different");
        }
    }

    /** Above this share of the requests the probe timed, requests missing from its figures make the run Invalid. */
    static final double MISSING_LIMIT = 0.001;
    /** Above this share, writes the probe could not pair with a request are worth a warning. */
    static final double ORPHAN_WRITE_LIMIT = 0.001;

    /**
     * What the kernel probe could not time in the measured window judges its figures: requests missing from its
     * histograms (dropped or late) beyond {@value #MISSING_LIMIT} of those it timed make the run Invalid, fewer are a
     * warning; requests never answered (read or not) and read after their client had left, and orphan writes beyond
     * {@value #ORPHAN_WRITE_LIMIT}, are warnings. Each names the periods it happened in. A probe that counts only over
     * its whole run is judged on that (warm-up included), and says so.
     */
    private static void judgeProbeLosses(AnalysisInput input, RunResult.ServerFigures server, Findings findings) {
        AnalysisInput.ServerMeasure measure = input.serverMeasure();
        if (measure.probeLosses() == null) {
            return;
        }
        AnalysisInput.ProbeLosses losses = measure.probeLosses().within(input.windowStartEpochMs(), input.windowEndEpochMs());
        boolean windowed = losses.byPeriod() != null;
        List<PeriodHistogram> timed = measure.measuredBy().probeBeside()
                ? measure.otherSeries().getOrDefault("probe." + AgentContract.SERIES_SERVICE, List.of())
                : input.serverPeriods().orElse(List.of());
        long timedRequests = timed.stream().mapToLong(p -> p.histogram().getTotalCount()).sum();
        RunResult.ProbeLosses figures = new RunResult.ProbeLosses();
        figures.droppedRecords = losses.droppedRecords();
        figures.lateRecords = losses.lateRecords();
        figures.abandonedRequests = losses.abandonedRequests();
        figures.orphanWrites = losses.orphanWrites();
        figures.neverReadRequests = windowed ? losses.neverReadRequests() : null;
        figures.readAfterPeerClosed = windowed ? losses.readAfterPeerClosed() : null;
        figures.timedRequests = timedRequests;
        figures.scope = windowed ? "window" : "run";
        figures.periods = windowed ? losses.byPeriod().stream().map(p -> periodLosses(input, p)).toList() : null;
        server.probeLosses = figures;
        String over = windowed ? "in the window" : "over its whole run, warm-up included";
        long base = Math.max(1, timedRequests + losses.missing());
        if (losses.missing() > 0) {
            String missing = String.format(Locale.ROOT, "the kernel probe missed %,d of %,d requests %s (%.3f %%%s): %,d dropped "
                    + "(its ring was full, or it lacked CPU to drain it) and %,d late (they reached it after their period "
                    + "closed: it lacked CPU past the period's grace, or its walk over the connections failed, as its log says)", losses.missing(), base, over, 100.0 * losses.missing() / base,
                    periodsWith(input, losses, p -> p.droppedRecords() + p.lateRecords()), losses.droppedRecords(), losses.lateRecords());
            if ((double) losses.missing() / base > MISSING_LIMIT) {
                findings.invalid.add(missing + "; its figures lack them: give it a larger ring (--ring-bytes), a CPU of its own, or "
                        + "longer sample periods (spec.samplePeriod)");
            } else {
                findings.warnings.add(missing);
            }
        }
        long unanswered = losses.abandonedRequests() + losses.neverReadRequests();
        if (unanswered > 0) {
            findings.warnings.add(String.format(Locale.ROOT, "%,d requests were never answered before their connection closed %s%s: %,d read "
                    + "by the server and %,d never read (client timeouts, or a server past its capacity): no histogram holds them", unanswered,
                    over, periodsWith(input, losses, p -> p.abandonedRequests() + p.neverReadRequests()), losses.abandonedRequests(),
                    losses.neverReadRequests()));
        }
        if (losses.readAfterPeerClosed() > 0) {
            findings.warnings.add(String.format(Locale.ROOT, "the server read %,d requests after their client had closed the connection %s%s: "
                    + "the client had given up on them (its timeouts), and counts them as errors; those answered are in the server's figures",
                    losses.readAfterPeerClosed(), over, periodsWith(input, losses, AnalysisInput.ProbeLosses.Period::readAfterPeerClosed)));
        }
        if ((double) losses.orphanWrites() / base > ORPHAN_WRITE_LIMIT) {
            findings.warnings.add(String.format(Locale.ROOT, "the kernel probe saw %,d writes on connections with no request being read %s%s "
                    + "(connections opened before it attached, or 100-continue): requests on them were not timed", losses.orphanWrites(), over,
                    periodsWith(input, losses, AnalysisInput.ProbeLosses.Period::orphanWrites)));
        }
    }

    private static RunResult.PeriodLosses periodLosses(AnalysisInput input, AnalysisInput.ProbeLosses.Period p) {
        RunResult.PeriodLosses figures = new RunResult.PeriodLosses();
        figures.period = periodIndex(input, p.startEpochMs());
        figures.startEpochMs = p.startEpochMs();
        figures.droppedRecords = p.droppedRecords();
        figures.lateRecords = p.lateRecords();
        figures.abandonedRequests = p.abandonedRequests();
        figures.orphanWrites = p.orphanWrites();
        figures.neverReadRequests = p.neverReadRequests();
        figures.readAfterPeerClosed = p.readAfterPeerClosed();
        return figures;
    }

    private static int periodIndex(AnalysisInput input, long startEpochMs) {
        return (int) ((startEpochMs - input.windowStartEpochMs()) / input.samplePeriodMs());
    }

    /** ", in periods 3, 7 of 15" for the window's periods where count is positive; empty without periods. */
    private static String periodsWith(AnalysisInput input, AnalysisInput.ProbeLosses losses, ToLongFunction<AnalysisInput.ProbeLosses.Period> count) {
        if (losses.byPeriod() == null) {
            return "";
        }
        List<String> indexes = losses.byPeriod().stream().filter(p -> count.applyAsLong(p) > 0)
                .map(p -> Integer.toString(periodIndex(input, p.startEpochMs()))).toList();
        long periods = Math.max(1, (input.windowEndEpochMs() - input.windowStartEpochMs() + input.samplePeriodMs() - 1) / input.samplePeriodMs());
        return indexes.isEmpty() ? "" : String.format(Locale.ROOT, ", in period%s %s of %d", indexes.size() == 1 ? "" : "s",
                String.join(", ", indexes.size() > 12 ? indexes.subList(0, 12) : indexes) + (indexes.size() > 12 ? ", …" : ""), periods);
    }
}
