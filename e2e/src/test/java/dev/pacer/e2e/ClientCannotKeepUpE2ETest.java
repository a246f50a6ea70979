package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Locale;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rate one client core cannot sustain must give Invalid, naming the client and what it achieved. */
class ClientCannotKeepUpE2ETest {
    @TempDir
    Path work;

    @Test
    void unsustainableRateIsInvalidNotFast() throws Exception {
        LocalRuns.Outcome outcome = LocalRuns.run(work, "overload",
                LocalRuns.spec("overload", "jetty12", "--mode=core", "150k", "/plaintext", "1s", "3s"));
        assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(1);
        RunResult result = outcome.document().result();
        assertThat(result.verdict).isEqualTo(Verdict.Invalid);
        double achieved = result.clients.perClient.getFirst().achievedRate;
        assertThat(achieved).isLessThan(150_000 * 0.97);
        assertThat(result.reasons).anySatisfy(reason -> assertThat(reason)
                .contains("client-0").contains(String.format(Locale.ROOT, "achieved %.1f req/s", achieved)));
        assertThat(outcome.out()).contains("verdict: Invalid").contains("client-0 achieved").contains("scheduled requests were never sent");
    }
}
