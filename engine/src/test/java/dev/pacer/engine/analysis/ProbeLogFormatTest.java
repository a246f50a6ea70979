package dev.pacer.engine.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The kernel probe (Go, hdrhistogram-go) writes its interval logs with a whole-second base time; this reads the log
 * its own test pins (contract golden {@code probe-service.hlog}, written by probe/internal/period) and checks that
 * every period lands on its true bounds, with its counts and values, as the engine will see them.
 */
class ProbeLogFormatTest {
    private static final long START_MS = 1_795_473_600_250L;   // 10:00:00.250, the probe's start in its test
    private static final long SECOND_MS = 1_795_473_601_000L;

    @Test
    void periodsOfTheProbeLandOnTheirBoundsWithTheirValues() throws IOException {
        List<PeriodHistogram> periods = HistogramLogs.parse(golden("probe-service.hlog"), 1000);

        assertThat(periods).extracting(PeriodHistogram::startEpochMs)
                .containsExactly(START_MS, SECOND_MS, SECOND_MS + 1000, SECOND_MS + 2000);
        assertThat(periods).extracting(PeriodHistogram::endEpochMs)
                .containsExactly(SECOND_MS, SECOND_MS + 1000, SECOND_MS + 2000, SECOND_MS + 2500);
        assertThat(periods).extracting(p -> p.histogram().getTotalCount()).containsExactly(1L, 2L, 0L, 1L);
        assertThat(periods.get(1).histogram().getMaxValue()).isBetween(2_000_000L, 2_002_000L);
        assertThat(periods.get(0).histogram().getValueAtPercentile(50)).isBetween(49_950L, 50_050L);
    }

    private static String golden(String file) throws IOException {
        try (InputStream in = ProbeLogFormatTest.class.getResourceAsStream("/golden/" + file)) {
            assertThat(in).as("golden/" + file + " of the contract's test jar").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }
}
