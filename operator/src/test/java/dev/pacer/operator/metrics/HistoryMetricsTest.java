package dev.pacer.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import dev.pacer.engine.history.Figure;
import dev.pacer.engine.history.SeriesHistory;
import dev.pacer.engine.history.SeriesKey;
import org.junit.jupiter.api.Test;

/** The {@code pacer_history_*} series: one regression alerting, one acknowledged, one suspected. */
class HistoryMetricsTest {
    static SeriesHistory.Change change(Figure figure, String firstRun, SeriesHistory.Status status, boolean acknowledged) {
        return new SeriesHistory.Change("1a2b3c4d5e6f", figure, null, firstRun, "before-" + firstRun, 7, 0.12, 0.08, 0.16, 1e-6, status, true,
                acknowledged, List.of("sha256:a"), List.of("sha256:b"));
    }

    static SeriesHistory history() {
        return new SeriesHistory(new SeriesKey("1a2b3c4d5e6f", "pacer/server-jetty12 · 1x1000 · GET / · 10 s", Map.of()), List.of(),
                Map.of(), List.of(change(Figure.p99Integral, "run-18", SeriesHistory.Status.confirmed, false),
                change(Figure.maxIntegral, "run-12", SeriesHistory.Status.confirmed, true),
                change(Figure.errors, "run-29", SeriesHistory.Status.suspected, false)), Map.of());
    }

    @Test
    void onlyConfirmedRegressionsNobodyAcknowledgedAlert() throws IOException {
        String text = RunMetricsTest.exposition(HistoryMetrics.snapshots(List.of(history())));
        assertThat(text).contains("pacer_history_regressions{label=\"pacer/server-jetty12 · 1x1000 · GET / · 10 s\",series=\"1a2b3c4d5e6f\"} 1.0");
        assertThat(text).contains("pacer_history_regression_ratio{figure=\"p99Integral\",first_run=\"run-18\",label=");
        assertThat(text).doesNotContain("run-12").doesNotContain("run-29");
    }
}
