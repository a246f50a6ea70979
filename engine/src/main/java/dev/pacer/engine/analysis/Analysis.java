package dev.pacer.engine.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.pacer.api.RunResult;

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
    private Analysis() {
    }

    /** The figures plus the per-period series. */
    public record Outcome(RunResult result, List<PeriodPoint> periods) {
    }

    /**
     * How the run was conducted, as the orchestration saw it, when that makes its figures untrustworthy: the clients
     * behind their schedule as the window began (they measured their catching up), and pinned CPUs asked for but not
     * obtained. Judged with the figures' own findings, in {@link Findings#judge}.
     *
     * @param behindAtWindowStart why the clients were behind as the window began, or {@code null}
     * @param unpinned            each pinning asked for and not obtained
     */
    public record Conduct(String behindAtWindowStart, List<String> unpinned) {
        public static final Conduct CLEAN = new Conduct(null, List.of());
    }

    public static Outcome analyze(AnalysisInput input) {
        return analyze(input, Conduct.CLEAN);
    }

    public static Outcome analyze(AnalysisInput input, Conduct conduct) {
        RunResult result = new RunResult();
        result.window = new RunResult.Window(input.windowStartEpochMs(), input.windowEndEpochMs());
        long windowMs = input.windowEndEpochMs() - input.windowStartEpochMs();
        int expectedPeriods = (int) (windowMs / input.samplePeriodMs());
        Findings findings = new Findings();
        ServerAnalysis.Outcome server = ServerAnalysis.of(input, expectedPeriods, findings);
        ClientAnalysis.Outcome clients = ClientAnalysis.of(input, expectedPeriods, windowMs / 1000.0, findings);
        result.server = server.figures();
        result.clients = clients.figures();
        conduct.unpinned().forEach(p -> findings.invalid.add("placement asked for pinned CPUs, but " + p));
        if (conduct.behindAtWindowStart() != null) {   // what the window measured is the clients catching up: said first
            findings.invalid.addFirst(conduct.behindAtWindowStart());
        }
        findings.judge(result);
        return new Outcome(result, periods(server, clients));
    }

    /** Full periods lying inside the window. */
    public static List<PeriodHistogram> inWindow(List<PeriodHistogram> periods, AnalysisInput input) {
        return WindowHistograms.inWindow(periods, input);
    }

    /** The per-period series: every period start any series has, in order. */
    private static List<PeriodPoint> periods(ServerAnalysis.Outcome server, ClientAnalysis.Outcome clients) {
        TreeSet<Long> starts = new TreeSet<>(server.byPeriod().keySet());
        starts.addAll(clients.byPeriod().keySet());
        starts.addAll(server.otherByPeriod().keySet());
        List<PeriodPoint> series = new ArrayList<>();
        for (long start : starts) {
            series.add(new PeriodPoint(start, server.byPeriod().get(start), clients.byPeriod().getOrDefault(start, Map.of()),
                    server.otherByPeriod().get(start), server.usageByPeriod().get(start), clients.usageByPeriod().get(start)));
        }
        return series;
    }
}
