package dev.pacer.engine.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class PeriodComparisonTest {
    /** 30 periods around 1000 µs, spread ±45. */
    static double[] periods(double centre) {
        return IntStream.range(0, 30).mapToDouble(i -> centre + (i * 37 % 91) - 45).toArray();
    }

    @Test
    void aShiftedCopyIsFoundExactlyWithAnIntervalAroundIt() {
        double[] baseline = periods(1000);
        double[] slower = periods(1100);   // the same periods, 100 µs later: 10 % of the baseline's median
        PeriodComparison c = PeriodComparison.of(baseline, slower).orElseThrow();
        assertThat(c.shift()).isCloseTo(100 / PeriodComparison.median(baseline), within(1e-9));
        assertThat(c.shiftLow()).isLessThan(c.shift()).isPositive();
        assertThat(c.shiftHigh()).isGreaterThan(c.shift());
        assertThat(c.significant()).isTrue();
        assertThat(c.sentence("b", "a", 100_000, 110_000)).as("slower by the same formula: 100 / 110 - 1")
                .startsWith("b is 9.1 % slower than a by the P99 integral (110.000 ms against 100.000 ms")
                .contains("Hodges-Lehmann shift +10.0 %");
    }

    /** Jetty's "X % faster" is the ratio of the integrals, the baseline's over the other's: 36.6 against 30.0 is 22 %. */
    @Test
    void percentFasterIsTheBaselinesIntegralOverTheOthersMinusOne() {
        assertThat(PeriodComparison.percentFaster(36.6, 30.0)).isCloseTo(22.0, within(1e-9));
        assertThat(PeriodComparison.of(periods(1000), periods(900)).orElseThrow().sentence("jetty12-core", "jetty11", 36_600, 30_000))
                .startsWith("jetty12-core is 22.0 % faster than jetty11 by the P99 integral (30.000 ms against 36.600 ms, as Jetty publishes)");
    }

    @Test
    void theSameRunTwiceHasAnIntervalAroundZeroAndNoSignificance() {
        PeriodComparison c = PeriodComparison.of(periods(1000), periods(1000)).orElseThrow();
        assertThat(c.shift()).isZero();
        assertThat(c.shiftLow()).isNegative();
        assertThat(c.shiftHigh()).isPositive();
        assertThat(c.significant()).isFalse();
    }

    @Test
    void oneOutlierMovesTheShiftLittle() {
        double[] baseline = periods(1000);
        double[] other = periods(1000);
        other[7] = 50_000;   // one period paused
        PeriodComparison c = PeriodComparison.of(baseline, other).orElseThrow();
        assertThat(Math.abs(c.shift())).as("the median of pairwise differences ignores one wild period").isLessThan(0.01);
    }
}
