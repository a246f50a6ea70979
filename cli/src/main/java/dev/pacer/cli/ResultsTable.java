package dev.pacer.cli;

import java.io.PrintStream;
import java.util.Locale;

import dev.pacer.api.Measure;
import dev.pacer.api.RunResult;
import dev.pacer.engine.report.ResultDocument;

/** The results as a terminal table. */
final class ResultsTable {
    private ResultsTable() {
    }

    static void print(ResultDocument doc, PrintStream out) {
        RunResult r = doc.result();
        out.printf(Locale.ROOT, "%n%s  %s  verdict: %s%n", doc.run(), doc.load(), r.verdict);
        for (String reason : r.reasons) {
            out.println("  reason:  " + reason);
        }
        for (String warning : r.warnings) {
            out.println("  warning: " + warning);
        }
        RunResult.ServerFigures s = r.server;
        if (s != null && s.histogramsAvailable) {
            out.printf(Locale.ROOT, "%nserver  samples %d  requests %,d%s%n", s.samples, s.requests,
                    s.measuredBy == null ? "" : "  (" + s.series + ", measured by the " + (Measure.parse(s.measuredBy).map(Measure::agent).orElse(false) ? "agent" : s.measuredBy) + ")");
            out.printf(Locale.ROOT, "  P99 integral %s ms  (corrected %s ms)   max integral %s ms%n",
                    ms(s.p99IntegralMicros), ms(s.p99IntegralCorrectedMicros), ms(s.maxIntegralMicros));
            out.printf(Locale.ROOT, "  min %s  p50 %s  p99 %s  p99.9 %s  max %s ms%n",
                    ms(s.minMicros), ms(s.p50Micros), ms(s.p99Micros), ms(s.p999Micros), ms(s.maxMicros));
            if (s.otherSeries != null) {
                for (RunResult.SeriesFigures o : s.otherSeries) {
                    out.printf(Locale.ROOT, "  %-16s p50 %s  p99 %s  max %s ms   P99 integral %s ms  requests %,d%n", o.name,
                            ms(o.p50Micros), ms(o.p99Micros), ms(o.maxMicros), ms(o.p99IntegralMicros), o.requests);
                }
            }
        } else {
            out.println("\nserver  histograms unavailable" + (s != null && s.measuredBy != null && Measure.parse(s.measuredBy).filter(m -> !m.measured()).isPresent()
                    ? " (not measured: measure none)" : ""));
        }
        out.printf(Locale.ROOT, "%n%-10s %12s %12s %10s %7s %10s %15s %10s %12s %16s %16s%n", "client", "offered/s", "achieved/s", "requests",
                "errors", "p99 ms", "uncorr. p99 ms", "max ms", "lag p99 ms", "P99 integral ms", "uncorr. integral");
        for (RunResult.ClientFigure c : r.clients.perClient) {
            out.printf(Locale.ROOT, "%-10s %12.1f %12.1f %10d %7d %10s %15s %10s %12s %16s %16s%n", c.name, c.offeredRate, c.achievedRate,
                    c.requests, c.errors, ms(c.p99Micros), c.p99UncorrectedMicros == null ? "–" : ms(c.p99UncorrectedMicros),
                    ms(c.maxMicros), ms(c.sendLagP99Micros), ms(c.p99IntegralMicros), ms(c.p99UncorrectedIntegralMicros));
        }
        if (r.clients.p99IntegralMicros != null) {
            // under the integrals' columns: the client columns before them take 106 characters
            out.printf(Locale.ROOT, "%-10s %95s %16s %16s%n", "all", "", ms(r.clients.p99IntegralMicros), ms(r.clients.p99UncorrectedIntegralMicros));
        }
        out.println("  p99: response time from each request's intended send time (corrected for coordinated omission); uncorr.: from its"
                + " actual send time; integrals: sums over the measured periods of each period's P99 (all: every client's responses of"
                + " the period together)");
        RunResult.TlsFigures tls = r.tls;
        if (tls != null) {
            out.printf(Locale.ROOT, "%ntls     handshakes: clients %,d, server %s   in the window %.1f/s   client handshake p50 %s  p99 %s  max %s ms%n",
                    tls.clientHandshakes, tls.serverHandshakes == null ? "not told" : String.format(Locale.ROOT, "%,d", tls.serverHandshakes),
                    tls.handshakesPerSecond, ms(tls.clientHandshakeP50Micros), ms(tls.clientHandshakeP99Micros), ms(tls.clientHandshakeMaxMicros));
        }
    }

    static String ms(Long micros) {
        return micros == null ? "-" : String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }
}
