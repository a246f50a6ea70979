package dev.pacer.engine.suite;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.DoubleFunction;
import java.util.function.Function;

import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.api.ComparedSeries;
import dev.pacer.api.Quantities;
import dev.pacer.api.RunResult;
import dev.pacer.contract.AgentContract;
import dev.pacer.engine.analysis.PeriodComparison;

/**
 * A suite's figures from its runs so far, pure: each run's line, per server the integrals over repetitions (median
 * and interval) or the sustained rate of its sweep, and each server against the first. The status and
 * {@code suite.json} hold it; the report draws it.
 *
 * @param curves per server, its sweep's (rate, client p50, client p99, passed) in rate order
 */
public record SuiteSummary(List<BenchmarkSuiteStatus.SuiteRun> runs, List<BenchmarkSuiteStatus.ServerSummary> servers,
                           List<String> comparisons, Map<String, List<CurvePoint>> curves, String series) {

    public record CurvePoint(long ratePerClient, Long clientP50Micros, Long clientP99Micros, boolean passed) {
    }

    public static SuiteSummary of(SuitePlan plan, List<SuitePlan.Done> done) {
        List<BenchmarkSuiteStatus.SuiteRun> runs = new ArrayList<>();
        for (SuitePlan.Done d : done) {
            runs.add(line(plan, d));
        }
        List<BenchmarkSuiteStatus.ServerSummary> servers = new ArrayList<>();
        List<String> comparisons = new ArrayList<>();
        Map<String, List<CurvePoint>> curves = new LinkedHashMap<>();
        if (plan.sweep().isPresent()) {
            sweep(plan, done, servers, comparisons, curves);
        } else {
            fixed(plan, done, servers, comparisons);
        }
        return new SuiteSummary(runs, servers, comparisons, curves, plan.series().spec());
    }

    private static BenchmarkSuiteStatus.SuiteRun line(SuitePlan plan, SuitePlan.Done d) {
        BenchmarkSuiteStatus.SuiteRun run = new BenchmarkSuiteStatus.SuiteRun();
        run.name = d.step().runName();
        run.server = d.step().server();
        run.ratePerClient = d.step().ratePerClient();
        run.repetition = d.step().repetition();
        SuiteOutcome outcome = d.outcome();
        run.phase = outcome.succeeded() ? "Succeeded" : "Failed";
        if (!outcome.succeeded()) {
            run.reason = outcome.failure();
            if (plan.sweep().isPresent()) {
                run.passed = false;
                run.boundBy = SuiteOutcome.Bound.RUN_FAILED.label;
            }
            return run;
        }
        RunResult result = outcome.result();
        run.verdict = result.verdict == null ? null : result.verdict.name();
        plan.series().in(result.server).ifPresent(series -> {
            run.p99IntegralMicros = series.p99IntegralMicros();
            run.maxIntegralMicros = series.maxIntegralMicros();
        });
        if (result.clients != null) {
            run.clientP50Micros = result.clients.p50Micros;
            run.clientP99Micros = result.clients.p99Micros;
            run.achievedRate = result.clients.achievedRate;
        }
        plan.sweep().ifPresent(s -> {
            SuiteOutcome.Judgement judgement = plan.judge(outcome);
            run.passed = judgement.passed();
            run.reason = judgement.why();
            run.boundBy = judgement.passed() ? null : judgement.bound().label;
        });
        if (plan.sweep().isEmpty() && result.verdict != null && !"Passed".equals(result.verdict.name()) && !result.reasons.isEmpty()) {
            run.reason = result.reasons.getFirst();
        }
        return run;
    }

    /** The server's own figures at the sustained rate: the compared series' p99, what measured it, the probe's residence p99. */
    private static void serverAt(SuitePlan plan, BenchmarkSuiteStatus.ServerSummary summary, RunResult.ServerFigures server) {
        summary.serverMeasuredBy = server.measuredBy;
        summary.serverP99AtSustainedMicros = plan.series().in(server).map(ComparedSeries.Figures::p99Micros).orElse(null);
        if (server.otherSeries != null) {
            server.otherSeries.stream().filter(s -> s.name != null && s.name.endsWith(AgentContract.SERIES_RESIDENCE)).findFirst()
                    .ifPresent(s -> summary.residenceP99AtSustainedMicros = s.p99Micros);
        }
    }

    private static void fixed(SuitePlan plan, List<SuitePlan.Done> done, List<BenchmarkSuiteStatus.ServerSummary> servers,
                              List<String> comparisons) {
        for (long rate : plan.rates()) {
            String baselineName = plan.servers().getFirst().name;
            double[] baselineP99s = periodP99s(plan, done, baselineName, rate);
            Long baselineIntegral = null;   // the median over its repetitions
            for (var server : plan.servers()) {
                List<ComparedSeries.Figures> results = compared(plan, done, server.name, rate);
                BenchmarkSuiteStatus.ServerSummary summary = new BenchmarkSuiteStatus.ServerSummary();
                summary.name = server.name;
                summary.ratePerClient = rate;
                summary.repetitions = results.size();
                if (!results.isEmpty()) {
                    MedianInterval p99 = MedianInterval.of(results.stream().mapToDouble(ComparedSeries.Figures::p99IntegralMicros).toArray());
                    MedianInterval max = MedianInterval.of(results.stream().mapToDouble(ComparedSeries.Figures::maxIntegralMicros).toArray());
                    summary.p99IntegralMedianMicros = Math.round(p99.median());
                    summary.p99IntegralLowMicros = Math.round(p99.low());
                    summary.p99IntegralHighMicros = Math.round(p99.high());
                    summary.intervalConfidence = Math.round(p99.confidence() * 1000) / 1000.0;
                    summary.maxIntegralMedianMicros = Math.round(max.median());
                }
                footprint(summary, results(done, server.name, rate, false));
                servers.add(summary);
                if (server.name.equals(baselineName)) {
                    baselineIntegral = summary.p99IntegralMedianMicros;
                } else if (baselineIntegral != null && summary.p99IntegralMedianMicros != null) {
                    long base = baselineIntegral;
                    long other = summary.p99IntegralMedianMicros;
                    PeriodComparison.of(baselineP99s, periodP99s(plan, done, server.name, rate)).ifPresent(c -> comparisons.add("at "
                            + Quantities.formatRate(rate) + " req/s per client: " + c.sentence(server.name, baselineName, base, other)));
                }
            }
        }
    }

    private static void sweep(SuitePlan plan, List<SuitePlan.Done> done, List<BenchmarkSuiteStatus.ServerSummary> servers,
                              List<String> comparisons, Map<String, List<CurvePoint>> curves) {
        SweepSearch search = plan.sweep().orElseThrow();
        Long baseline = null;
        boolean baselineBound = false;
        String baselineName = plan.servers().getFirst().name;
        for (var server : plan.servers()) {
            List<SweepSearch.Trial> trials = plan.trials(done, server.name);
            List<CurvePoint> curve = new ArrayList<>();
            done.stream().filter(d -> d.step().server().equals(server.name))
                    .sorted(Comparator.comparingLong(d -> d.step().ratePerClient()))
                    .forEach(d -> {
                        RunResult.ClientFigures c = d.outcome().succeeded() ? d.outcome().result().clients : null;
                        curve.add(new CurvePoint(d.step().ratePerClient(), c == null ? null : c.p50Micros, c == null ? null : c.p99Micros,
                                plan.judge(d.outcome()).passed()));
                    });
            curves.put(server.name, curve);
            BenchmarkSuiteStatus.ServerSummary summary = new BenchmarkSuiteStatus.ServerSummary();
            summary.name = server.name;
            OptionalLong sustained = search.sustained(trials);
            summary.clientBound = search.clientBound(trials) ? true : null;
            if (sustained.isPresent()) {
                summary.sustainedRatePerClient = sustained.getAsLong();
                curve.stream().filter(p -> p.ratePerClient() == sustained.getAsLong()).findFirst().ifPresent(p -> {
                    summary.p50AtSustainedMicros = p.clientP50Micros();
                    summary.p99AtSustainedMicros = p.clientP99Micros();
                });
                footprint(summary, results(done, server.name, sustained.getAsLong(), false));
                results(done, server.name, sustained.getAsLong(), false).stream().findFirst().ifPresent(r -> serverAt(plan, summary, r.server));
            }
            done.stream().filter(d -> d.step().server().equals(server.name))
                    .sorted(Comparator.comparingLong(d -> d.step().ratePerClient()))
                    .filter(d -> !plan.judge(d.outcome()).passed()).findFirst()
                    .ifPresent(d -> {
                        summary.boundBy = plan.judge(d.outcome()).bound().label;
                        summary.p99PartsAtBound = plan.p99Parts(d.outcome()).orElse(null);
                    });
            summary.confirmation = confirmation(plan, done, server.name, sustained, trials);
            servers.add(summary);
            if (server.name.equals(baselineName)) {
                baseline = summary.sustainedRatePerClient;
                baselineBound = summary.clientBound != null;
            } else if (baseline != null && summary.sustainedRatePerClient != null && (baselineBound || summary.clientBound != null)) {
                comparisons.add(String.format(Locale.ROOT, "%s sustains at least %s req/s per client, %s at least %s: no comparison, as %s",
                        server.name, Quantities.formatRate(summary.sustainedRatePerClient), baselineName, Quantities.formatRate(baseline),
                        summary.clientBound != null ? "the clients, not " + server.name + ", were the limit"
                                : "the clients, not " + baselineName + ", were the limit"));
            } else if (baseline != null && summary.sustainedRatePerClient != null) {
                double change = (summary.sustainedRatePerClient - baseline) / (double) baseline;
                comparisons.add(String.format(Locale.ROOT, "%s sustains %s req/s per client at p99 < %.0f ms, %.1f %% %s than %s (%s)",
                        server.name, Quantities.formatRate(summary.sustainedRatePerClient), search.maxClientP99().toNanos() / 1e6,
                        Math.abs(change) * 100, change >= 0 ? "more" : "less", baselineName, Quantities.formatRate(baseline)));
            }
        }
    }

    /**
     * How a server's sustained rate was certified ({@code sweep.confirm}), in a sentence: its longer run held; the
     * confirmations that failed and moved it down; the lowest failing rate's second try. Null without confirmation, or
     * before the first one ends.
     */
    private static String confirmation(SuitePlan plan, List<SuitePlan.Done> done, String server, OptionalLong sustained,
                                       List<SweepSearch.Trial> trials) {
        String length = plan.suite().getSpec().sweep == null ? null : plan.suite().getSpec().sweep.confirm;
        List<SuitePlan.Done> confirms = done.stream().filter(d -> d.step().server().equals(server) && d.step().duration() != null).toList();
        if (length == null || confirms.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        boolean held = sustained.isPresent() && confirms.stream().anyMatch(d -> d.step().ratePerClient() == sustained.getAsLong()
                && plan.judge(d.outcome()).passed());
        if (held) {
            parts.add("confirmed: " + Quantities.formatRate(sustained.getAsLong()) + " req/s per client held over a " + length + " run");
        } else if (sustained.isPresent()) {
            parts.add("not confirmed yet at " + Quantities.formatRate(sustained.getAsLong()) + " req/s per client");
        } else {
            parts.add("no rate held over a " + length + " run");
        }
        List<SuitePlan.Done> failed = confirms.stream().filter(d -> !plan.judge(d.outcome()).passed()).toList();
        if (!failed.isEmpty()) {
            SuitePlan.Done first = failed.getFirst();
            parts.add("moved down from " + Quantities.formatRate(first.step().ratePerClient()) + ": its " + length + " run failed ("
                    + plan.judge(first.outcome()).why() + ")" + (failed.size() == 1 ? "" : ", and at that length so did "
                    + String.join(", ", failed.subList(1, failed.size()).stream().map(d -> Quantities.formatRate(d.step().ratePerClient())).toList())));
        }
        trials.stream().filter(t -> !t.passed()).mapToLong(SweepSearch.Trial::ratePerClient).min().ifPresent(lowest -> {
            List<SuitePlan.Done> again = done.stream().filter(d -> d.step().server().equals(server) && d.step().ratePerClient() == lowest
                    && d.step().repetition() > 1 && d.step().duration() == null).toList();
            if (!again.isEmpty()) {
                parts.add(again.stream().allMatch(d -> plan.judge(d.outcome()).passed())
                        ? Quantities.formatRate(lowest) + " passed its second try after failing once: the limit lies close above the figure"
                        : Quantities.formatRate(lowest) + " failed again");
            }
        });
        return String.join("; ", parts);
    }

    /** The results of a server's runs at a rate that gave server figures. */
    /** The compared series' figures of a server's runs at a rate that have it. */
    private static List<ComparedSeries.Figures> compared(SuitePlan plan, List<SuitePlan.Done> done, String server, long rate) {
        return results(done, server, rate, true).stream().flatMap(r -> plan.series().in(r.server).stream())
                .filter(f -> f.p99IntegralMicros() != null && f.maxIntegralMicros() != null).toList();
    }

    private static List<RunResult> results(List<SuitePlan.Done> done, String server, long rate, boolean withHistograms) {
        return done.stream().filter(d -> d.step().server().equals(server) && d.step().ratePerClient() == rate && d.outcome().succeeded())
                .map(d -> d.outcome().result())
                .filter(r -> r.server != null && (!withHistograms || r.server.histogramsAvailable && r.server.p99IntegralMicros != null)).toList();
    }

    /** Each footprint figure's median over the runs that have it (a run without footprint adds nothing). */
    private static void footprint(BenchmarkSuiteStatus.ServerSummary summary, List<RunResult> results) {
        List<RunResult.Footprint> footprints = results.stream().map(r -> r.server.footprint).filter(Objects::nonNull).toList();
        summary.imageBytes = footprints.stream().map(f -> f.imageBytes).filter(Objects::nonNull).findFirst().orElse(null);
        summary.idleRssBytes = median(footprints, f -> f.idleRssBytes == null ? null : f.idleRssBytes.doubleValue(), Math::round);
        summary.peakRssBytes = median(footprints, f -> f.peakRssBytes == null ? null : f.peakRssBytes.doubleValue(), Math::round);
        summary.cpuMicrosPerRequest = median(footprints, f -> f.cpuMicrosPerRequest, v -> Math.round(v * 100) / 100.0);
        summary.cpuCores = median(footprints, f -> f.cpuCores, v -> Math.round(v * 1000) / 1000.0);
    }

    private static <T> T median(List<RunResult.Footprint> footprints, Function<RunResult.Footprint, Double> figure,
                                DoubleFunction<T> rounded) {
        double[] values = footprints.stream().map(figure).filter(Objects::nonNull).mapToDouble(Double::doubleValue).toArray();
        return values.length == 0 ? null : rounded.apply(MedianInterval.of(values).median());
    }

    /** Every repetition's per-period P99s of the compared series, pooled. */
    private static double[] periodP99s(SuitePlan plan, List<SuitePlan.Done> done, String server, long rate) {
        return compared(plan, done, server, rate).stream().filter(f -> f.periodP99Micros() != null)
                .flatMap(f -> f.periodP99Micros().stream()).mapToDouble(Long::doubleValue).toArray();
    }
}
