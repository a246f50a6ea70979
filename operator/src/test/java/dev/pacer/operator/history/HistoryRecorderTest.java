package dev.pacer.operator.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class HistoryRecorderTest {
    @Test
    void noAddressNoHistory() {
        assertThat(HistoryRecorder.Settings.fromEnvironment(Map.of())).isNull();
    }

    @Test
    void badSettingsAreRefusedNamingTheVariable() {
        assertThatThrownBy(() -> HistoryRecorder.Settings.fromEnvironment(Map.of("PACER_HISTORY_JDBC_URL", "postgres://db/pacer")))
                .hasMessageContaining("PACER_HISTORY_JDBC_URL must be jdbc:postgresql://HOST:PORT/DATABASE");
        assertThatThrownBy(() -> HistoryRecorder.Settings.fromEnvironment(Map.of("PACER_HISTORY_JDBC_URL", "jdbc:postgresql://db/pacer",
                "PACER_HISTORY_ALL_RUNS", "yes"))).hasMessageContaining("PACER_HISTORY_ALL_RUNS must be true or false");
    }

    @Test
    void everyRunOrTheLabelledOnesAndThePasswordNeverSaid() {
        HistoryRecorder.Settings all = HistoryRecorder.Settings.fromEnvironment(Map.of("PACER_HISTORY_JDBC_URL", "jdbc:postgresql://db:5432/pacer",
                "PACER_HISTORY_PASSWORD", "s3cret"));
        HistoryRecorder.Settings labelled = new HistoryRecorder.Settings(all.jdbcUrl(), all.user(), all.password(), false);
        BenchmarkRun run = new BenchmarkRun();
        run.setMetadata(new ObjectMetaBuilder().withName("r").build());
        assertThat(new HistoryRecorder(all).wants(run)).isTrue();
        assertThat(new HistoryRecorder(labelled).wants(run)).isFalse();
        run.getMetadata().setLabels(Map.of(HistoryRecorder.LABEL, "true"));
        assertThat(new HistoryRecorder(labelled).wants(run)).isTrue();
        assertThat(all.user()).isEqualTo("pacer");
        assertThat(all.toString()).isEqualTo("jdbc:postgresql://db:5432/pacer as pacer, every run, a change confirmed by 5 later runs")
                .doesNotContain("s3cret");
        assertThat(HistoryRecorder.Settings.fromEnvironment(Map.of("PACER_HISTORY_JDBC_URL", "jdbc:postgresql://db/pacer",
                "PACER_HISTORY_CONFIRM_RUNS", "3")).confirmRuns()).isEqualTo(3);
        assertThatThrownBy(() -> HistoryRecorder.Settings.fromEnvironment(Map.of("PACER_HISTORY_JDBC_URL", "jdbc:postgresql://db/pacer",
                "PACER_HISTORY_CONFIRM_RUNS", "0"))).hasMessageContaining("PACER_HISTORY_CONFIRM_RUNS");
    }
}
