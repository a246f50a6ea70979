package dev.pacer.loadgen.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The schedule's ramp: the rate grows linearly from 0, then the constant rate, exactly, and no request is lost. */
class ScheduleTest {
    static final long S = 1_000_000_000L;

    @Test
    void aRampHoldsHalfItsFullRateRequestsAndThenTheRateIsExact() {
        // 1,000 req/s ramped over 2 s: 1,000 requests in the ramp, then 1,000 per second for the 3 s left
        Schedule s = Schedule.covering(7, 1_000, 5 * S, 2 * S);
        assertThat(s.total()).isEqualTo(1_000 + 3_000);
        assertThat(s.intendedNanos(0)).isEqualTo(7);
        // n = rate × t² / (2 × ramp): request 250 at 1 s, request 1,000 (the first after the ramp) at 2 s
        assertThat(s.intendedNanos(250)).isEqualTo(7 + S);
        assertThat(s.intendedNanos(1_000)).isEqualTo(7 + 2 * S);
        assertThat(s.intendedNanos(1_001)).isEqualTo(7 + 2 * S + 1_000_000);
        assertThat(s.intendedNanos(3_999)).isEqualTo(7 + 2 * S + 2_999_000_000L);
        assertThat(s.rateAt(S / 2)).isEqualTo(250.0);
        assertThat(s.rateAt(3 * S)).isEqualTo(1_000.0);
    }

    @Test
    void intendedTimesNeverGoBackAndTheRampsRateIsTheOneAsked() {
        Schedule s = Schedule.covering(0, 40_000, 12 * S, 5 * S);
        long previous = Long.MIN_VALUE;
        int[] perSecond = new int[12];
        for (long n = 0; n < s.total(); n++) {
            long t = s.intendedNanos(n);
            assertThat(t).isGreaterThanOrEqualTo(previous);
            previous = t;
            perSecond[(int) (t / S)]++;
        }
        // second k of the ramp holds rate × (2k + 1) / (2 × 5): 4,000, 12,000, …, 36,000; then 40,000 each
        for (int k = 0; k < 5; k++) {
            assertThat(perSecond[k]).as("second %d", k).isBetween(40_000 * (2 * k + 1) / 10 - 1, 40_000 * (2 * k + 1) / 10 + 1);
        }
        for (int k = 5; k < 12; k++) {
            assertThat(perSecond[k]).as("second %d", k).isEqualTo(40_000);
        }
    }

    @Test
    void withoutARampTheScheduleIsTheConstantOne() {
        Schedule ramped = Schedule.covering(0, 3, S, 0);
        Schedule constant = Schedule.covering(0, 3, S);
        assertThat(ramped).isEqualTo(constant);
        assertThat(Schedule.covering(0, 100, S, 5 * S).rampNanos()).as("a ramp longer than the schedule is cut to it").isEqualTo(S);
    }

    @Test
    void theRequestsDueByAnInstantAreThoseIntendedAtOrBeforeIt() {
        Schedule ramped = Schedule.covering(0, 10_000, 2_000_000_000L, 500_000_000L);
        for (long n : new long[] {0, 1, 7, ramped.total() / 3, ramped.total() - 1}) {
            long at = ramped.intendedNanos(n);
            assertThat(ramped.dueBy(at)).as("at request %d's time", n).isGreaterThan(n);
            assertThat(ramped.dueBy(at - 1)).as("just before it").isLessThanOrEqualTo(n);
        }
        assertThat(ramped.dueBy(-1)).isZero();
        assertThat(ramped.dueBy(Long.MAX_VALUE)).isEqualTo(ramped.total());
        assertThat(ramped.extendedTo(3_000_000_000L).total()).isEqualTo(ramped.total() + 10_000);
        assertThat(ramped.extendedTo(1_000_000_000L)).as("never shorter").isSameAs(ramped);
    }
}
