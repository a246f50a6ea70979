package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

class FailureCausesTest {
    @Test
    void countsEachCauseMostFrequentFirst() {
        FailureCauses causes = new FailureCauses();
        for (int i = 0; i < 3; i++) {
            causes.count(new EOFException("the server closed the connection"));
        }
        causes.count(new TimeoutException("no response within 100 ms"));
        causes.count(new ExecutionException(new IOException("Connection reset by peer")));
        causes.count(new ExecutionException(new IOException("Connection reset by peer")));
        assertThat(causes.byCount()).containsExactly(
                Map.entry("EOFException: the server closed the connection", 3L),
                Map.entry("IOException: Connection reset by peer", 2L),
                Map.entry("TimeoutException: no response within 100 ms", 1L));
    }

    /** A message that varies with every failure cannot grow the table past its bound: the rest count together. */
    @Test
    void causesPastTheBoundCountTogether() {
        FailureCauses causes = new FailureCauses();
        for (int i = 0; i < 20; i++) {
            causes.count(new IOException("connection " + i + " failed"));
        }
        assertThat(causes.byCount()).hasSize(FailureCauses.MAX_CAUSES + 1)
                .containsEntry(FailureCauses.OTHER, 20L - FailureCauses.MAX_CAUSES);
        assertThat(causes.byCount().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(20);
    }

    @Test
    void aCauseIsItsTypeAndTheFirstLineOfItsMessageCutShort() {
        assertThat(FailureCauses.describe(new IOException())).isEqualTo("IOException");
        assertThat(FailureCauses.describe(new IOException("first\nsecond"))).isEqualTo("IOException: first");
        assertThat(FailureCauses.describe(new IOException("x".repeat(500)))).hasSize(200).endsWith("…");
        assertThat(FailureCauses.describe(null)).isEqualTo("no cause given");
        assertThat(FailureCauses.describeFully(new ExecutionException(new IOException("first\nsecond")))).isEqualTo("IOException: first\nsecond");
    }
}
