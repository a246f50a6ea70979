package dev.pacer.engine.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MedianIntervalTest {
    @Test
    void threeRepetitionsGiveMinToMaxAtSeventyFivePercent() {
        MedianInterval i = MedianInterval.of(new double[] {30, 10, 20});
        assertThat(i.median()).isEqualTo(20);
        assertThat(i.low()).isEqualTo(10);
        assertThat(i.high()).isEqualTo(30);
        assertThat(i.confidence()).isCloseTo(0.75, within(1e-9));
    }

    @Test
    void ninetyFivePercentNeedsSixAndNarrowsWithMore() {
        assertThat(MedianInterval.of(new double[] {1, 2, 3, 4, 5}).confidence()).isCloseTo(0.9375, within(1e-9));
        MedianInterval six = MedianInterval.of(new double[] {6, 1, 5, 2, 4, 3});
        assertThat(six.confidence()).isCloseTo(0.96875, within(1e-9));
        assertThat(six.median()).isEqualTo(3.5);
        assertThat(six.low()).isEqualTo(1);
        assertThat(six.high()).isEqualTo(6);
        double[] twenty = new double[20];
        for (int k = 0; k < 20; k++) {
            twenty[k] = k + 1;
        }
        MedianInterval wide = MedianInterval.of(twenty);
        assertThat(wide.confidence()).isGreaterThanOrEqualTo(0.95);
        assertThat(wide.low()).isEqualTo(6);    // the 6th smallest to the 6th largest: 95.9 %
        assertThat(wide.high()).isEqualTo(15);
    }

    @Test
    void oneRunHasNoInterval() {
        MedianInterval one = MedianInterval.of(new double[] {7});
        assertThat(one.low()).isEqualTo(one.high()).isEqualTo(7);
        assertThat(one.confidence()).isZero();
    }
}
