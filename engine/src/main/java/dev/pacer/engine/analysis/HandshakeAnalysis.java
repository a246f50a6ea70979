package dev.pacer.engine.analysis;

import java.util.List;
import java.util.Map;

import dev.pacer.api.RunResult;
import dev.pacer.contract.AgentContract;
import org.HdrHistogram.Histogram;

/**
 * An https run's handshakes from the roles' handshake series ({@code <role>.handshake.hlog}): counted over the whole run
 * (a connection kept for the run shakes hands during the warm-up), their rate inside the window, and the clients' times.
 */
public final class HandshakeAnalysis {
    private HandshakeAnalysis() {
    }

    /**
     * @param rawLogs every log the run collected, by file name
     * @param clients the clients' names
     */
    public static RunResult.TlsFigures of(Map<String, String> rawLogs, List<String> clients, long samplePeriodMs,
                                          long windowStartEpochMs, long windowEndEpochMs) {
        RunResult.TlsFigures figures = new RunResult.TlsFigures();
        Histogram all = new Histogram(3);
        long inWindow = 0;
        for (String client : clients) {
            for (PeriodHistogram period : periods(rawLogs, client, samplePeriodMs)) {
                all.add(period.histogram());
                if (period.startEpochMs() >= windowStartEpochMs && period.endEpochMs() <= windowEndEpochMs) {
                    inWindow += period.histogram().getTotalCount();
                }
            }
        }
        figures.clientHandshakes = all.getTotalCount();
        figures.handshakesPerSecond = inWindow * 1000.0 / Math.max(1, windowEndEpochMs - windowStartEpochMs);
        if (all.getTotalCount() > 0) {
            figures.clientHandshakeP50Micros = Integrals.toMicros(all.getValueAtPercentile(50));
            figures.clientHandshakeP99Micros = Integrals.toMicros(all.getValueAtPercentile(99));
            figures.clientHandshakeMaxMicros = Integrals.toMicros(all.getMaxValue());
        }
        String serverLog = rawLogs.get(AgentContract.ROLE_SERVER + "." + AgentContract.SERIES_HANDSHAKE + ".hlog");
        if (serverLog != null) {
            figures.serverHandshakes = HistogramLogs.parse(serverLog, samplePeriodMs).stream()
                    .mapToLong(period -> period.histogram().getTotalCount()).sum();
        }
        return figures;
    }

    private static List<PeriodHistogram> periods(Map<String, String> rawLogs, String role, long samplePeriodMs) {
        String log = rawLogs.get(role + "." + AgentContract.SERIES_HANDSHAKE + ".hlog");
        return log == null ? List.of() : HistogramLogs.parse(log, samplePeriodMs);
    }
}
