package dev.pacer.engine.analysis;

import static dev.pacer.engine.analysis.WindowHistograms.NANOS_PER_MILLI;
import static dev.pacer.engine.analysis.WindowHistograms.inWindow;
import static dev.pacer.engine.analysis.WindowHistograms.micros;
import static dev.pacer.engine.analysis.WindowHistograms.newHistogram;
import static dev.pacer.engine.analysis.WindowHistograms.percentile;
import static dev.pacer.engine.analysis.WindowHistograms.round2;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.pacer.api.RunResult;
import org.HdrHistogram.Histogram;

/**
 * The clients' figures over the window: what each offered and achieved, its response times from the intended send
 * time, its send lag, its errors and what it used; whether each applied its load and kept up goes to the findings
 * (a client's own limit is never reported as the server's latency).
 */
final class ClientAnalysis {
    /**
     * @param figures       {@code result.clients}
     * @param byPeriod      each client's figures per period start
     * @param usageByPeriod what each client used per period start
     */
    record Outcome(RunResult.ClientFigures figures, Map<Long, Map<String, PeriodPoint.ClientStats>> byPeriod,
                   Map<Long, Map<String, PeriodPoint.Usage>> usageByPeriod) {
    }

    private ClientAnalysis() {
    }

    static Outcome of(AnalysisInput input, int expectedPeriods, double windowSeconds, Findings findings) {
        RunResult.ClientFigures clients = new RunResult.ClientFigures();
        Merged merged = new Merged();
        for (AnalysisInput.ClientInput client : input.clients()) {
            ClientWindow window = ClientWindow.of(client, input);
            RunResult.ClientFigure figure = figure(client, window, windowSeconds, merged);
            clients.perClient.add(figure);
            judgeLoad(client, figure, window, expectedPeriods, input, findings);
            if (client.resources() != null) {
                Footprint.Outcome used = Footprint.of(new Footprint.Input(client.resources(), input.serverResources().loadStartEpochMs(),
                        input.windowStartEpochMs(), input.windowEndEpochMs(), figure.requests));
                figure.footprint = used.figures();
                used.byPeriod().forEach((start, usage) -> merged.usageByPeriod.computeIfAbsent(start, k -> new LinkedHashMap<>()).put(client.name(), usage));
                judgeClientUse(client.name(), used, input, findings);
            }
        }
        totals(clients, merged, windowSeconds);
        judgeErrors(clients, merged.failureCauses, input, findings);
        return new Outcome(clients, merged.statsByPeriod, merged.usageByPeriod);
    }

    /** One client's histograms inside the window: its response times (corrected and not) and its send lag. */
    private record ClientWindow(List<PeriodHistogram> periods, Histogram responses, List<PeriodHistogram> uncorrectedPeriods,
                                Histogram uncorrected, Map<Long, Histogram> lagByStart, Histogram lags) {
        static ClientWindow of(AnalysisInput.ClientInput client, AnalysisInput input) {
            List<PeriodHistogram> periods = inWindow(client.responseTimePeriods(), input);
            List<PeriodHistogram> lagPeriods = inWindow(client.sendLagPeriods(), input);
            List<PeriodHistogram> uncorrectedPeriods = inWindow(client.uncorrectedPeriods(), input);
            Map<Long, Histogram> lagByStart = new LinkedHashMap<>();
            lagPeriods.forEach(p -> lagByStart.put(p.startEpochMs(), p.histogram()));
            return new ClientWindow(periods, allOf(periods), uncorrectedPeriods, allOf(uncorrectedPeriods), lagByStart, allOf(lagPeriods));
        }

        private static Histogram allOf(List<PeriodHistogram> periods) {
            Histogram all = newHistogram(periods);
            periods.forEach(p -> all.add(p.histogram()));
            return all;
        }

        long sendLagP99Nanos() {
            return percentile(lags, 99);
        }
    }

    /** Every client's histograms merged, overall and per period start, as the clients are read. */
    private static final class Merged {
        final Map<Long, Map<String, PeriodPoint.ClientStats>> statsByPeriod = new TreeMap<>();
        final Map<Long, Map<String, PeriodPoint.Usage>> usageByPeriod = new TreeMap<>();
        final Map<Long, Histogram> responsesByPeriod = new TreeMap<>();
        final Map<Long, Histogram> uncorrectedByPeriod = new TreeMap<>();
        Histogram responses;
        Histogram uncorrected;
        long worstSendLagP99Nanos;
        long errors;
        long resent;
        final Map<String, Long> failureCauses = new LinkedHashMap<>();
        double offered;
    }

    /** A client's figures over the window, its histograms merged into every client's. */
    private static RunResult.ClientFigure figure(AnalysisInput.ClientInput client, ClientWindow window, double windowSeconds, Merged merged) {
        for (PeriodHistogram period : window.periods()) {
            Histogram h = period.histogram();
            Histogram lag = window.lagByStart().get(period.startEpochMs());
            merged.statsByPeriod.computeIfAbsent(period.startEpochMs(), k -> new LinkedHashMap<>()).put(client.name(),
                    new PeriodPoint.ClientStats(h.getTotalCount(), micros(percentile(h, 50)), micros(percentile(h, 99)),
                            micros(percentile(h, 99.9)), micros(h.getTotalCount() == 0 ? 0 : h.getMaxValue()),
                            micros(lag == null ? 0 : percentile(lag, 99))));
        }
        if (merged.responses == null) {
            merged.responses = newHistogram(window.periods());
        }
        merged.responses.add(window.responses());
        boolean uncorrectedSent = !window.uncorrectedPeriods().isEmpty();
        if (uncorrectedSent) {
            merged.uncorrected = merged.uncorrected == null ? newHistogram(window.uncorrectedPeriods()) : merged.uncorrected;
            merged.uncorrected.add(window.uncorrected());
        }
        Histogram responses = window.responses();
        RunResult.ClientFigure figure = new RunResult.ClientFigure();
        figure.name = client.name();
        figure.requests = responses.getTotalCount();
        figure.offeredRate = client.offeredRatePerSecond();
        figure.achievedRate = round2(responses.getTotalCount() / windowSeconds);
        figure.errors = client.errors();
        figure.resentRequests = client.resentRequests() > 0 ? client.resentRequests() : null;
        figure.failureCauses = client.failureCauses().isEmpty() ? null : client.failureCauses();
        figure.p99Micros = micros(percentile(responses, 99));
        figure.p99UncorrectedMicros = uncorrectedSent ? micros(percentile(window.uncorrected(), 99)) : null;
        figure.p99IntegralMicros = p99Integral(window.periods(), merged.responsesByPeriod);
        figure.p99UncorrectedIntegralMicros = uncorrectedSent ? p99Integral(window.uncorrectedPeriods(), merged.uncorrectedByPeriod) : null;
        figure.maxMicros = micros(responses.getTotalCount() == 0 ? 0 : responses.getMaxValue());
        figure.sendLagP99Micros = micros(window.sendLagP99Nanos());
        figure.sendLagMaxMicros = micros(window.lags().getTotalCount() == 0 ? 0 : window.lags().getMaxValue());
        merged.worstSendLagP99Nanos = Math.max(merged.worstSendLagP99Nanos, window.sendLagP99Nanos());
        merged.errors += client.errors();
        merged.resent += client.resentRequests();
        client.failureCauses().forEach((cause, count) -> merged.failureCauses.merge(cause, count, Long::sum));
        merged.offered += client.offeredRatePerSecond();
        return figure;
    }

    /** Whether a client applied its load: alive, reporting every period, at its rate, on schedule. */
    private static void judgeLoad(AnalysisInput.ClientInput client, RunResult.ClientFigure figure, ClientWindow window, int expectedPeriods,
                                  AnalysisInput input, Findings findings) {
        if (client.failure() != null) {
            findings.invalid.add(client.name() + " failed: " + client.failure());
        }
        if (window.periods().size() < expectedPeriods) {
            findings.invalid.add(String.format(Locale.ROOT, "%s: %d of %d sample periods present in the measured window",
                    client.name(), window.periods().size(), expectedPeriods));
        }
        double shortfall = client.offeredRatePerSecond() <= 0 ? 0 : 1 - figure.achievedRate / client.offeredRatePerSecond();
        if (shortfall > input.criteria().rateTolerance()) {
            findings.invalid.add(String.format(Locale.ROOT,
                    "%s achieved %.1f req/s of the %.1f req/s it offered (%.1f%% short, tolerance %.1f%%): the load was not applied%s",
                    client.name(), figure.achievedRate, client.offeredRatePerSecond(), shortfall * 100,
                    input.criteria().rateTolerance() * 100,
                    client.unsentRequests() > 0 ? String.format(Locale.ROOT, " (%,d scheduled requests were never sent)", client.unsentRequests()) : ""));
        } else if (-shortfall > input.criteria().rateTolerance()) {
            findings.warnings.add(String.format(Locale.ROOT,
                    "%s achieved %.1f req/s, more than the %.1f req/s it offered: it caught up a backlog inside the window",
                    client.name(), figure.achievedRate, client.offeredRatePerSecond()));
        }
        if (client.resentRequests() > 0) {
            findings.warnings.add(String.format(Locale.ROOT,
                    "%s sent requests again %,d times after the server refused them unprocessed (HTTP/2 GOAWAY: streams above its last "
                            + "stream id, as a server sends when it closes a connection after a number of requests, e.g. nginx's "
                            + "keepalive_requests): each waited for another connection, and that wait is in its response time; "
                            + "raise the server's requests per connection to measure without it",
                    client.name(), client.resentRequests()));
        }
        long lagP99 = window.sendLagP99Nanos();
        if (lagP99 > input.criteria().maxSendLagP99().toNanos()) {
            findings.clientLimits.add(String.format(Locale.ROOT,
                    "%s sent late: send lag P99 %.3f ms exceeds %.3f ms, the client could not keep up with its rate",
                    client.name(), lagP99 / NANOS_PER_MILLI, input.criteria().maxSendLagP99().toNanos() / NANOS_PER_MILLI));
        }
    }

    /** All clients together: their requests merged, as Jetty's load generator merges its clients' histograms. */
    private static void totals(RunResult.ClientFigures clients, Merged merged, double windowSeconds) {
        clients.offeredRate = round2(merged.offered);
        clients.requests = merged.responses == null ? 0 : merged.responses.getTotalCount();
        clients.achievedRate = round2(clients.requests / windowSeconds);
        clients.errors = merged.errors;
        clients.resentRequests = merged.resent > 0 ? merged.resent : null;
        clients.sendLagP99Micros = micros(merged.worstSendLagP99Nanos);
        if (merged.responses != null && merged.responses.getTotalCount() > 0) {
            clients.p50Micros = micros(merged.responses.getValueAtPercentile(50));
            clients.p99Micros = micros(merged.responses.getValueAtPercentile(99));
            clients.maxMicros = micros(merged.responses.getMaxValue());
        }
        if (merged.uncorrected != null && merged.uncorrected.getTotalCount() > 0) {
            clients.p99UncorrectedMicros = micros(merged.uncorrected.getValueAtPercentile(99));
        }
        List<Long> periodP99s = merged.responsesByPeriod.values().stream().map(h -> percentile(h, 99)).toList();
        clients.p99IntegralMicros = Integrals.integralMicros(periodP99s);
        if (!periodP99s.isEmpty()) {
            clients.periodP99Micros = periodP99s.stream().map(Integrals::toMicros).toList();
            clients.periodSendLagP99Micros = merged.responsesByPeriod.keySet().stream()
                    .map(start -> merged.statsByPeriod.getOrDefault(start, Map.of()).values().stream()
                            .mapToLong(PeriodPoint.ClientStats::sendLagP99Micros).max().orElse(0))
                    .toList();
        }
        if (!merged.uncorrectedByPeriod.isEmpty()) {
            clients.p99UncorrectedIntegralMicros = Integrals.integralMicros(
                    merged.uncorrectedByPeriod.values().stream().map(h -> percentile(h, 99)).toList());
        }
    }

    private static void judgeErrors(RunResult.ClientFigures clients, Map<String, Long> failureCauses, AnalysisInput input, Findings findings) {
        long attempted = clients.requests + clients.errors;
        if (attempted > 0 && (double) clients.errors / attempted > input.criteria().maxErrorRatio()) {
            findings.failed.add(String.format(Locale.ROOT, "%d errors in %d requests (%.4f%%) exceed criteria.maxErrorRatio %.4f%%",
                    clients.errors, attempted, 100.0 * clients.errors / attempted, input.criteria().maxErrorRatio() * 100)
                    + mostFrequent(failureCauses));
        }
    }

    /** The causes of requests without a response that a reason names: the three most frequent, all clients together. */
    static final int CAUSES_NAMED = 3;

    private static String mostFrequent(Map<String, Long> failureCauses) {
        if (failureCauses.isEmpty()) {
            return "";
        }
        List<Map.Entry<String, Long>> top = failureCauses.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
                .toList();
        String named = top.stream().limit(CAUSES_NAMED)
                .map(e -> String.format(Locale.ROOT, "%,d × %s", e.getValue(), e.getKey()))
                .collect(Collectors.joining("; "));
        int others = top.size() - CAUSES_NAMED;
        return "; without a response: " + named + (others <= 0 ? ""
                : String.format(Locale.ROOT, "; %d other cause%s in clients.perClient[].failureCauses", others, others == 1 ? "" : "s"));
    }

    /** A client's P99 integral over its periods, each period also merged into every client's of the same start. */
    private static long p99Integral(List<PeriodHistogram> periods, Map<Long, Histogram> allByPeriod) {
        List<Long> p99s = new ArrayList<>();
        for (PeriodHistogram period : periods) {
            p99s.add(percentile(period.histogram(), 99));
            allByPeriod.computeIfAbsent(period.startEpochMs(), k -> newHistogram(List.of(period))).add(period.histogram());
        }
        return Integrals.integralMicros(p99s);
    }

    /**
     * A client that had no CPU left, or stalled longer than it may send late, cannot have applied its schedule: it
     * delays requests and counts its own queueing as the server's latency. Saturation makes the run Invalid; a stall
     * longer than {@code criteria.maxSendLagP99} is a warning (the send lag criterion judges its effect).
     */
    private static void judgeClientUse(String client, Footprint.Outcome used, AnalysisInput input, Findings findings) {
        RunResult.Footprint f = used.figures();
        if (f.saturatedPeriods != null && f.saturatedPeriods > 0) {
            findings.clientLimits.add(String.format(Locale.ROOT, "%s's CPU was saturated in %d of %d periods (up to %.0f %% of its %d CPU(s) used, "
                            + "threads waiting up to %s for one each time they became runnable): a client without CPU left sends late and counts "
                            + "its own queueing as the server's latency; give it more CPUs (spec.clients.cpus), other CPUs than the server's "
                            + "and its neighbours', or more clients, or let it send more requests on each wake-up (a wider "
                            + "spec.clients.minWakeupIntervalMicros, up to 5000 and to half of spec.criteria.maxSendLagP99 in whole milliseconds)",
                    client, f.saturatedPeriods, used.byPeriod().size(), 100 * f.maxPeriodCpuUtilization, f.cpusAllowed,
                    f.maxWaitPerSliceMicros == null ? "an unknown time" : String.format(Locale.ROOT, "%.2f ms", f.maxWaitPerSliceMicros / 1000))
                    + competitors(". In those periods, what else ran on its CPUs: ", used.whenSaturated()));
        }
        Optional<Duration> maxStall = input.criteria().maxClientStall();
        if (maxStall.isPresent()) {
            double limitMillis = maxStall.get().toNanos() / NANOS_PER_MILLI;
            if (f.maxHiccupMillis != null && f.maxHiccupMillis > limitMillis) {
                findings.clientLimits.add(String.format(Locale.ROOT, "%s stalled for %.1f ms in the window (GC, safepoint or descheduling), longer than "
                        + "criteria.maxClientStall %.1f ms: requests due then left late and their wait counts as the server's latency; "
                        + "give the client more memory or CPUs (spec.clients), or fewer requests per client", client, f.maxHiccupMillis, limitMillis)
                        + competitors(". In the window, what else ran on its CPUs: ", used.inWindow()));
            }
            return;
        }
        double allowedMillis = input.criteria().maxSendLagP99().toNanos() / NANOS_PER_MILLI;
        if (f.maxHiccupMillis != null && f.maxHiccupMillis > allowedMillis) {
            findings.warnings.add(String.format(Locale.ROOT, "%s stalled for %.1f ms in the window (GC, safepoint or descheduling), longer than "
                    + "criteria.maxSendLagP99 %.1f ms: requests due then left late", client, f.maxHiccupMillis, allowedMillis)
                    + competitors(". In the window, what else ran on its CPUs: ", used.inWindow()));
        }
    }

    /** The competitors named after a lead, or nothing when no figure says who they were. */
    private static String competitors(String lead, Footprint.Competitors competitors) {
        String named = competitors.describe();
        return named.isEmpty() ? "" : lead + named;
    }

}
