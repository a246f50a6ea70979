package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Whose wait a request's time before the wire is: the client's while it paces and reconnects, the server's otherwise. */
class SendLagTest {
    static final long INTENDED = 1_000_000;
    static final long HANDED = INTENDED + 20_000;   // the pacing loop was 20 µs late
    static final long BEGUN = HANDED + 5_000_000;   // 5 ms later it went to the wire

    @Test
    void aRequestThatWaitedForABusyConnectionIsLateOnlyByItsHandOff() {
        assertThat(Shard.sendLagNanos(INTENDED, HANDED, BEGUN, null)).isEqualTo(20_000);
    }

    @Test
    void aRequestThatWentOutOnAConnectionReopenedAfterItsHandOffIsLateUntilTheWire() {
        assertThat(Shard.sendLagNanos(INTENDED, HANDED, BEGUN, HANDED + 4_000_000)).isEqualTo(5_020_000);
    }

    @Test
    void aConnectionReopenedBeforeTheHandOffWasThereInTime() {
        assertThat(Shard.sendLagNanos(INTENDED, HANDED, BEGUN, HANDED - 1)).isEqualTo(20_000);
    }
}
