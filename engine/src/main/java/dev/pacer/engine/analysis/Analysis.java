package dev.pacer.engine.analysis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import org.HdrHistogram.Histogram;

/**
 * From collected histograms to {@code status.result}: no I/O. Keeps the full periods inside the measured window
 * (warm-up and the partial periods at the edges out), computes the server's integrals and percentiles and the
 * clients' rates, and decides the verdict:
 * <ul>
 *   <li>{@code Invalid} — the measurement cannot be trusted: no server histograms, missing periods, a client whose
 *       achieved rate fell short of its offered rate beyond the tolerance, a client whose send lag P99 exceeds the
 *       limit (it could not keep up), a client that failed; when a client's CPU, a stall or its send lag is among the
 *       reasons, {@code clientBound} says so: the run found the client's limit, not the server's;</li>
 *   <li>{@code Failed} — valid, but a criterion is not met (server P99, error ratio);</li>
 *   <li>{@code Passed} — otherwise.</li>
 * </ul>
 */
public final class Analysis {
    private static final double NANOS_PER_MILLI = 1e6;

    private Analysis() {
    }

    /** The figures plus the per-period series. */
    public record Outcome(RunResult result, List<PeriodPoint> periods) {
    }

    public static Outcome analyze(AnalysisInput input) {
        RunResult result = new RunResult();
        result.window = new RunResult.Window(input.windowStartEpochMs(), input.windowEndEpochMs());
        List<String> invalid = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        List<String> clientLimits = new ArrayList<>();   // the Invalid reasons that say a client, not the server, was the limit
        long windowMs = input.windowEndEpochMs() - input.windowStartEpochMs();
        int expectedPeriods = (int) (windowMs / input.samplePeriodMs());
        double windowSeconds = windowMs / 1000.0;

        Map<Long, PeriodPoint.Stats> serverByPeriod = new TreeMap<>();
        RunResult.ServerFigures server = new RunResult.ServerFigures();
        result.server = server;
        AnalysisInput.ServerMeasure measure = input.serverMeasure();
        server.measuredBy = measure.measuredBy().spec();
        if (input.serverPeriods().isEmpty() && measure.none()) {
            server.histogramsAvailable = false;
            result.warnings.add("the server is not measured (spec.server.measure: none): no server histograms; the verdict rests on the clients");
        } else if (input.serverPeriods().isEmpty()) {
            server.histogramsAvailable = false;
            invalid.add("server histograms unavailable" + (input.serverUnavailableReason() == null ? "" : ": " + input.serverUnavailableReason())
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
                invalid.add(String.format(Locale.ROOT, "server: %d of %d sample periods present in the measured window",
                        periods.size(), expectedPeriods));
            }
            if (total.getTotalCount() == 0) {
                invalid.add("server: recorded no request in the measured window");
            }
            input.criteria().maxP99().ifPresent(limit -> {
                if (total.getTotalCount() > 0 && total.getValueAtPercentile(99) > limit.toNanos()) {
                    failed.add(String.format(Locale.ROOT, "server P99 %.3f ms exceeds criteria.maxP99 %.3f ms",
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
                result.warnings.add(String.format(Locale.ROOT, "the server's CPUs were saturated (at least %.0f %% of its %d CPUs busy) "
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

        RunResult.ClientFigures clients = new RunResult.ClientFigures();
        result.clients = clients;
        Map<Long, Map<String, PeriodPoint.ClientStats>> clientsByPeriod = new TreeMap<>();
        Map<Long, Map<String, PeriodPoint.Usage>> clientUsageByPeriod = new TreeMap<>();
        Histogram allResponses = null;
        Histogram allUncorrected = null;
        long worstSendLagP99 = 0;
        long errors = 0;
        double offered = 0;
        for (AnalysisInput.ClientInput client : input.clients()) {
            List<PeriodHistogram> periods = inWindow(client.responseTimePeriods(), input);
            List<PeriodHistogram> lagPeriods = inWindow(client.sendLagPeriods(), input);
            Histogram responses = newHistogram(periods);
            periods.forEach(p -> responses.add(p.histogram()));
            Histogram lags = newHistogram(lagPeriods);
            lagPeriods.forEach(p -> lags.add(p.histogram()));
            Map<Long, Histogram> lagByStart = new LinkedHashMap<>();
            lagPeriods.forEach(p -> lagByStart.put(p.startEpochMs(), p.histogram()));
            for (PeriodHistogram period : periods) {
                Histogram h = period.histogram();
                Histogram lag = lagByStart.get(period.startEpochMs());
                clientsByPeriod.computeIfAbsent(period.startEpochMs(), k -> new LinkedHashMap<>()).put(client.name(),
                        new PeriodPoint.ClientStats(h.getTotalCount(), micros(percentile(h, 50)), micros(percentile(h, 99)),
                                micros(percentile(h, 99.9)), micros(h.getTotalCount() == 0 ? 0 : h.getMaxValue()),
                                micros(lag == null ? 0 : percentile(lag, 99))));
            }
            if (allResponses == null) {
                allResponses = newHistogram(periods);
            }
            allResponses.add(responses);
            List<PeriodHistogram> uncorrectedPeriods = inWindow(client.uncorrectedPeriods(), input);
            Histogram uncorrected = newHistogram(uncorrectedPeriods);
            uncorrectedPeriods.forEach(p -> uncorrected.add(p.histogram()));
            if (!uncorrectedPeriods.isEmpty()) {
                allUncorrected = allUncorrected == null ? newHistogram(uncorrectedPeriods) : allUncorrected;
                allUncorrected.add(uncorrected);
            }
            RunResult.ClientFigure figure = new RunResult.ClientFigure();
            figure.name = client.name();
            figure.requests = responses.getTotalCount();
            figure.offeredRate = client.offeredRatePerSecond();
            figure.achievedRate = round2(responses.getTotalCount() / windowSeconds);
            figure.errors = client.errors();
            figure.p99Micros = micros(percentile(responses, 99));
            figure.p99UncorrectedMicros = uncorrectedPeriods.isEmpty() ? null : micros(percentile(uncorrected, 99));
            figure.maxMicros = micros(responses.getTotalCount() == 0 ? 0 : responses.getMaxValue());
            long lagP99 = percentile(lags, 99);
            figure.sendLagP99Micros = micros(lagP99);
            figure.sendLagMaxMicros = micros(lags.getTotalCount() == 0 ? 0 : lags.getMaxValue());
            clients.perClient.add(figure);
            worstSendLagP99 = Math.max(worstSendLagP99, lagP99);
            errors += client.errors();
            offered += client.offeredRatePerSecond();

            if (client.failure() != null) {
                invalid.add(client.name() + " failed: " + client.failure());
            }
            if (periods.size() < expectedPeriods) {
                invalid.add(String.format(Locale.ROOT, "%s: %d of %d sample periods present in the measured window",
                        client.name(), periods.size(), expectedPeriods));
            }
            double shortfall = client.offeredRatePerSecond() <= 0 ? 0 : 1 - figure.achievedRate / client.offeredRatePerSecond();
            if (shortfall > input.criteria().rateTolerance()) {
                invalid.add(String.format(Locale.ROOT,
                        "%s achieved %.1f req/s of the %.1f req/s it offered (%.1f%% short, tolerance %.1f%%): the load was not applied%s",
                        client.name(), figure.achievedRate, client.offeredRatePerSecond(), shortfall * 100,
                        input.criteria().rateTolerance() * 100,
                        client.unsentRequests() > 0 ? String.format(Locale.ROOT, " (%,d scheduled requests were never sent)", client.unsentRequests()) : ""));
            } else if (-shortfall > input.criteria().rateTolerance()) {
                result.warnings.add(String.format(Locale.ROOT,
                        "%s achieved %.1f req/s, more than the %.1f req/s it offered: it caught up a backlog inside the window",
                        client.name(), figure.achievedRate, client.offeredRatePerSecond()));
            }
            if (lagP99 > input.criteria().maxSendLagP99().toNanos()) {
                clientLimits.add(String.format(Locale.ROOT,
                        "%s sent late: send lag P99 %.3f ms exceeds %.3f ms, the client could not keep up with its rate",
                        client.name(), lagP99 / NANOS_PER_MILLI, input.criteria().maxSendLagP99().toNanos() / NANOS_PER_MILLI));
            }
            if (client.resources() != null) {
                Footprint.Outcome used = Footprint.of(new Footprint.Input(client.resources(), input.serverResources().loadStartEpochMs(),
                        input.windowStartEpochMs(), input.windowEndEpochMs(), figure.requests));
                figure.footprint = used.figures();
                used.byPeriod().forEach((start, usage) -> clientUsageByPeriod.computeIfAbsent(start, k -> new LinkedHashMap<>()).put(client.name(), usage));
                judgeClientUse(client.name(), used, input, clientLimits, result.warnings);
            }
        }
        clients.offeredRate = round2(offered);
        clients.requests = allResponses == null ? 0 : allResponses.getTotalCount();
        clients.achievedRate = round2(clients.requests / windowSeconds);
        clients.errors = errors;
        clients.sendLagP99Micros = micros(worstSendLagP99);
        if (allResponses != null && allResponses.getTotalCount() > 0) {
            clients.p50Micros = micros(allResponses.getValueAtPercentile(50));
            clients.p99Micros = micros(allResponses.getValueAtPercentile(99));
            clients.maxMicros = micros(allResponses.getMaxValue());
        }
        if (allUncorrected != null && allUncorrected.getTotalCount() > 0) {
            clients.p99UncorrectedMicros = micros(allUncorrected.getValueAtPercentile(99));
        }
        long attempted = clients.requests + errors;
        if (attempted > 0 && (double) errors / attempted > input.criteria().maxErrorRatio()) {
            failed.add(String.format(Locale.ROOT, "%d errors in %d requests (%.4f%%) exceed criteria.maxErrorRatio %.4f%%",
                    errors, attempted, 100.0 * errors / attempted, input.criteria().maxErrorRatio() * 100));
        }

        invalid.addAll(clientLimits);
        result.reasons.addAll(invalid);
        result.reasons.addAll(failed);
        result.verdict = !invalid.isEmpty() ? Verdict.Invalid : !failed.isEmpty() ? Verdict.Failed : Verdict.Passed;
        result.clientBound = clientLimits.isEmpty() ? null : true;

        List<PeriodPoint> series = new ArrayList<>();
        TreeMap<Long, Boolean> starts = new TreeMap<>();
        serverByPeriod.keySet().forEach(k -> starts.put(k, true));
        clientsByPeriod.keySet().forEach(k -> starts.put(k, true));
        otherByPeriod.keySet().forEach(k -> starts.put(k, true));
        for (long start : starts.keySet()) {
            series.add(new PeriodPoint(start, serverByPeriod.get(start), clientsByPeriod.getOrDefault(start, Map.of()),
                    otherByPeriod.get(start), usageByPeriod.get(start), clientUsageByPeriod.get(start)));
        }
        return new Outcome(result, series);
    }

    /**
     * A client that had no CPU left, or stalled longer than it may send late, cannot have applied its schedule: it
     * delays requests and counts its own queueing as the server's latency. Saturation makes the run Invalid; a stall
     * longer than {@code criteria.maxSendLagP99} is a warning (the send lag criterion judges its effect).
     */
    private static void judgeClientUse(String client, Footprint.Outcome used, AnalysisInput input, List<String> clientLimits, List<String> warnings) {
        RunResult.Footprint f = used.figures();
        if (f.saturatedPeriods != null && f.saturatedPeriods > 0) {
            clientLimits.add(String.format(Locale.ROOT, "%s's CPU was saturated in %d of %d periods (up to %.0f %% of its %d CPU(s) used, "
                            + "threads waiting up to %s for one each time they became runnable): a client without CPU left sends late and counts "
                            + "its own queueing as the server's latency; give it more CPUs (spec.clients.cpus), other CPUs than the server's "
                            + "and its neighbours', or more clients",
                    client, f.saturatedPeriods, used.byPeriod().size(), 100 * f.maxPeriodCpuUtilization, f.cpusAllowed,
                    f.maxWaitPerSliceMicros == null ? "an unknown time" : String.format(Locale.ROOT, "%.2f ms", f.maxWaitPerSliceMicros / 1000)));
        }
        Optional<Duration> maxStall = input.criteria().maxClientStall();
        if (maxStall.isPresent()) {
            double limitMillis = maxStall.get().toNanos() / NANOS_PER_MILLI;
            if (f.maxHiccupMillis != null && f.maxHiccupMillis > limitMillis) {
                clientLimits.add(String.format(Locale.ROOT, "%s stalled for %.1f ms in the window (GC, safepoint or descheduling), longer than "
                        + "criteria.maxClientStall %.1f ms: requests due then left late and their wait counts as the server's latency; "
                        + "give the client more memory or CPUs (spec.clients), or fewer requests per client", client, f.maxHiccupMillis, limitMillis));
            }
            return;
        }
        double allowedMillis = input.criteria().maxSendLagP99().toNanos() / NANOS_PER_MILLI;
        if (f.maxHiccupMillis != null && f.maxHiccupMillis > allowedMillis) {
            warnings.add(String.format(Locale.ROOT, "%s stalled for %.1f ms in the window (GC, safepoint or descheduling), longer than "
                    + "criteria.maxSendLagP99 %.1f ms: requests due then left late", client, f.maxHiccupMillis, allowedMillis));
        }
    }

    /** Full periods lying inside the window. */
    public static List<PeriodHistogram> inWindow(List<PeriodHistogram> periods, AnalysisInput input) {
        List<PeriodHistogram> kept = new ArrayList<>();
        for (PeriodHistogram period : periods) {
            if (period.startEpochMs() >= input.windowStartEpochMs() && period.endEpochMs() <= input.windowEndEpochMs()
                    && period.lengthMs() == input.samplePeriodMs()) {
                kept.add(period);
            }
        }
        return kept;
    }

    private static Histogram newHistogram(List<PeriodHistogram> like) {
        if (!like.isEmpty()) {
            Histogram h = new Histogram(like.getFirst().histogram().getHighestTrackableValue(),
                    like.getFirst().histogram().getNumberOfSignificantValueDigits());
            h.setAutoResize(true);
            return h;
        }
        Histogram h = new Histogram(3);
        h.setAutoResize(true);
        return h;
    }

    /** One period of a server series, microseconds. */
    private static PeriodPoint.Stats stats(Histogram h) {
        boolean empty = h.getTotalCount() == 0;
        return new PeriodPoint.Stats(h.getTotalCount(), micros(empty ? 0 : h.getMinValue()), micros(percentile(h, 50)),
                micros(percentile(h, 99)), micros(empty ? 0 : h.getMaxValue()));
    }

    private static long percentile(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
    }

    private static long micros(long nanos) {
        return Integrals.toMicros(nanos);
    }

    private static double round2(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
