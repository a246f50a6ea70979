package dev.pacer.engine.agents;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** NTP's arithmetic on hand-made round trips, and the judgement against a run's limit. */
class ClockOffsetTest {
    @Test
    void theOffsetIsTheAgentsReadingLessTheMidpointOfTheRoundTrip() {
        ClockOffset.Sample ahead = new ClockOffset.Sample(1_000_000, 3_000_500, 1_001_000);
        assertThat(ahead.offsetMicros()).isEqualTo(2_000_000);
        assertThat(ahead.roundTripMicros()).isEqualTo(1_000);
        assertThat(new ClockOffset.Sample(1_000_000, 999_000, 1_000_400).offsetMicros()).isEqualTo(-1_200);
    }

    @Test
    void ofSeveralRoundTripsTheShortestIsKept() {
        var slow = new ClockOffset.Sample(0, 9_000, 10_000);
        var quick = new ClockOffset.Sample(20_000, 20_150, 20_300);
        assertThat(ClockOffset.best(List.of(slow, quick, new ClockOffset.Sample(30_000, 31_000, 32_000)))).contains(quick);
        assertThat(ClockOffset.best(List.of())).isEmpty();
    }

    @Test
    void anOffsetBeyondTheLimitNamesThePodTheNodeTheSizeAndTheFix() {
        var sample = new ClockOffset.Sample(1_000_000, 1_020_100, 1_000_200);   // 20 ms ahead over 0.2 ms
        assertThat(ClockOffset.problem("r-client-1", "node-3", sample, 2_500)).hasValueSatisfying(m -> assertThat(m)
                .contains("r-client-1 (node node-3)", "20.0 ms ahead of the operator's", "0.2 ms",
                        "2.5 ms allowed", "25 % of spec.criteria.maxSendLagP99", "start that much early", "NTP"));
        var behind = new ClockOffset.Sample(1_000_000, 990_100, 1_000_200);
        assertThat(ClockOffset.problem("p", "n", behind, 2_500)).hasValueSatisfying(m -> assertThat(m).contains("behind", "late"));
    }

    @Test
    void whatTheRoundTripLeavesUncertainIsNotHeldAgainstTheAgent() {
        // 3 ms off as measured, but over a 2 ms round trip: it may be only 2 ms off, within a 2.5 ms limit
        assertThat(ClockOffset.problem("p", "n", new ClockOffset.Sample(0, 4_000, 2_000), 2_500)).isEmpty();
        assertThat(ClockOffset.problem("p", "n", new ClockOffset.Sample(0, 4_000, 200), 2_500)).isPresent();
    }
}
