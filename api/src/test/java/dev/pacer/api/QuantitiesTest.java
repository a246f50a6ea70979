package dev.pacer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QuantitiesTest {
    @Test
    void rates() {
        assertThat(Quantities.parseRatePerSecond("500")).isEqualTo(500);
        assertThat(Quantities.parseRatePerSecond("60k")).isEqualTo(60_000);
        assertThat(Quantities.parseRatePerSecond("1.5M")).isEqualTo(1_500_000);
        assertThat(Quantities.formatRate(60_000)).isEqualTo("60k");
        assertThat(Quantities.formatRate(1_500_000)).isEqualTo("1.5M");
        assertThat(Quantities.formatRate(450)).isEqualTo("450");
        assertThatThrownBy(() -> Quantities.parseRatePerSecond("-5")).hasMessageContaining("not a rate");
        assertThatThrownBy(() -> Quantities.parseRatePerSecond("0")).hasMessageContaining("> 0");
        assertThatThrownBy(() -> Quantities.parseRatePerSecond("1.5")).hasMessageContaining("whole number");
        assertThatThrownBy(() -> Quantities.parseRatePerSecond("fast")).hasMessageContaining("60k");
    }

    /** What a suite writes into its runs' specs is read back as the same rate, and in the schema's form. */
    @Test
    void everyRateFormattedIsParsedBackToItself() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(54);
        java.util.stream.LongStream.concat(java.util.stream.LongStream.rangeClosed(1, 20_000),
                        java.util.stream.LongStream.concat(random.longs(200_000, 1, 1_000_000_000L),
                                java.util.stream.LongStream.of(100_000, 1_500_000, 12_300_000, 999_900_000, 999_999_999)))
                .forEach(rate -> {
                    String text = Quantities.formatRate(rate);
                    assertThat(text).as("%d", rate).matches(BenchmarkRunSpec.RATE_PATTERN);
                    assertThat(Quantities.parseRatePerSecond(text)).as(text).isEqualTo(rate);
                });
        assertThat(Quantities.formatRate(16_250)).isEqualTo("16250");
        assertThat(Quantities.formatRate(18_200)).isEqualTo("18.2k");
    }

    @Test
    void durations() {
        assertThat(Quantities.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Quantities.parseDuration("60s")).isEqualTo(Duration.ofSeconds(60));
        assertThat(Quantities.parseDuration("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Quantities.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Quantities.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Quantities.parseDuration("1.5ms")).as("not truncated to 1 ms").isEqualTo(Duration.ofNanos(1_500_000));
        assertThat(Quantities.parseDuration("0.08ms")).isEqualTo(Duration.ofNanos(80_000));
        assertThatThrownBy(() -> Quantities.parseDuration("60")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Quantities.parseDuration("5 minutes")).hasMessageContaining("not a duration");
    }

    @Test
    void ratiosAndCpus() {
        assertThat(Quantities.parseRatio("1%")).isEqualTo(0.01);
        assertThat(Quantities.parseRatio("0.05")).isEqualTo(0.05);
        assertThatThrownBy(() -> Quantities.parseRatio("150%")).hasMessageContaining("between 0 and 100%");
        assertThat(Quantities.parseCpuMillis("2")).isEqualTo(2000);
        assertThat(Quantities.parseCpuMillis("500m")).isEqualTo(500);
        assertThat(Quantities.parseCpuMillis("1.5")).isEqualTo(1500);
        assertThatThrownBy(() -> Quantities.parseCpuMillis("two")).hasMessageContaining("not a CPU quantity");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "500", "999999999", "60k", "1.5k", "0.5k", "0.001k", "999999.999k",
            "1.5M", "0.5M", "0.000001M", "999.999999M", "0", "00", "0k", "0.000k", "0.0M", "1.5", "1.0005k", "0.0000015M", "1000M",
            "1000000k", "1000000000", "-5", "5m", "5K", "fast", "1e3"})
    void theSchemasRatePatternTakesExactlyWhatTheParserTakes(String rate) {
        boolean parsed;
        try {
            Quantities.parseRatePerSecond(rate);
            parsed = true;
        } catch (IllegalArgumentException e) {
            parsed = false;
        }
        assertThat(rate.matches(BenchmarkRunSpec.RATE_PATTERN)).as("the pattern on %s", rate).isEqualTo(parsed);
    }
}
