package dev.pacer.engine.analysis;

import static dev.pacer.engine.analysis.WindowHistograms.NANOS_PER_MILLI;
import static dev.pacer.engine.analysis.WindowHistograms.inWindow;
import static dev.pacer.engine.analysis.WindowHistograms.micros;
import static dev.pacer.engine.analysis.WindowHistograms.newHistogram;
import static dev.pacer.engine.analysis.WindowHistograms.percentile;
import static dev.pacer.engine.analysis.WindowHistograms.stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.pacer.api.RunResult;
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

    static Outcome of(AnalysisInput input, int expectedPeriods, Findings findings) {
        Map<Long, PeriodPoint.Stats> serverByPeriod = new TreeMap<>();
        RunResult.ServerFigures server = new RunResult.ServerFigures();
        AnalysisInput.ServerMeasure measure = input.serverMeasure();
        server.measuredBy = measure.measuredBy().spec();
        if (input.serverPeriods().isEmpty() && measure.none()) {
            server.histogramsAvailable = false;
            findings.warnings.add("the server is not measured (spec.server.measure: none): no server histograms; the verdict rests on the clients");
        } else if (input.serverPeriods().isEmpty()) {
            server.histogramsAvailable = false;
            findings.invalid.add("server histograms unavailable" + (input.serverUnavailableReason() == null ? "" : ": " + input.serverUnavailableReason())
                    + "; the server-side figures cannot be computed");
        } else {
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
            server.p99IntegralMicros = Integrals.toMicros(Integrals.sumNanos(p99s));
            server.maxIntegralMicros = Integrals.toMicros(Integrals.sumNanos(maxes));
            server.p99IntegralCorrectedMicros = Integrals.toMicros(Integrals.correctedSumNanos(p99s));
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
            input.criteria().maxP99().ifPresent(limit -> {
                if (total.getTotalCount() > 0 && total.getValueAtPercentile(99) > limit.toNanos()) {
                    findings.failed.add(String.format(Locale.ROOT, "server P99 %.3f ms exceeds criteria.maxP99 %.3f ms",
                            total.getValueAtPercentile(99) / NANOS_PER_MILLI, limit.toNanos() / NANOS_PER_MILLI));
                }
            });
        }

        Map<Long, PeriodPoint.Usage> usageByPeriod = Map.of();
        AnalysisInput.ServerResources resources = input.serverResources();
        if (resources.use() == null) {
            server.footprintUnavailable = resources.unavailable();
        } else {
            Footprint.Outcome footprint = Footprint.of(new Footprint.Input(resources.use(), resources.loadStartEpochMs(),
                    input.windowStartEpochMs(), input.windowEndEpochMs(), server.requests));
            server.footprint = footprint.figures();
            usageByPeriod = footprint.byPeriod();
            if (footprint.figures().saturatedPeriods != null && footprint.figures().saturatedPeriods > 0) {
                findings.warnings.add(String.format(Locale.ROOT, "the server's CPUs were saturated (at least %.0f %% of its %d CPUs busy) "
                        + "in %d of %d periods: it ran at its capacity there, so its latency includes queueing for CPU",
                        Footprint.SATURATED_UTILIZATION * 100, footprint.figures().cpusAllowed, footprint.figures().saturatedPeriods,
                        footprint.byPeriod().size()));
            }
        }

        Map<Long, Map<String, PeriodPoint.Stats>> otherByPeriod = new TreeMap<>();
        for (Map.Entry<String, List<PeriodHistogram>> other : measure.otherSeries().entrySet()) {
            List<PeriodHistogram> periods = inWindow(other.getValue(), input);
            Histogram total = newHistogram(periods);
            List<Long> p99s = new ArrayList<>();
            for (PeriodHistogram period : periods) {
                total.add(period.histogram());
                p99s.add(percentile(period.histogram(), 99));
                otherByPeriod.computeIfAbsent(period.startEpochMs(), k -> new LinkedHashMap<>()).put(other.getKey(), stats(period.histogram()));
            }
            RunResult.SeriesFigures figures = new RunResult.SeriesFigures();
            figures.name = other.getKey();
            figures.requests = total.getTotalCount();
            figures.p50Micros = micros(percentile(total, 50));
            figures.p99Micros = micros(percentile(total, 99));
            figures.maxMicros = micros(total.getTotalCount() == 0 ? 0 : total.getMaxValue());
            figures.p99IntegralMicros = Integrals.toMicros(Integrals.sumNanos(p99s));
            if (server.otherSeries == null) {
                server.otherSeries = new ArrayList<>();
            }
            server.otherSeries.add(figures);
        }

        return new Outcome(server, serverByPeriod, otherByPeriod, usageByPeriod);
    }
}
