package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What keeps a local run's server program from starting is said before the run, naming the field and the fix. */
class LocalAppsTest {

    @Test
    void theGoPeerServerNotBuiltNamesTheCommandAndHowGoBuildsIt() {
        assertThat(LocalApps.commandProblem("no-such-dir/server-images/gohttp/target/pacer-gohttp")).hasValueSatisfying(p -> {
            assertThat(p.field()).isEqualTo("spec.server.command[0]");
            assertThat(p.message()).contains("is not an executable file", "Go 1.26 or newer is on PATH", "./pacer");
        });
    }

    @Test
    void aProgramOnThePathOrAnExecutableFileIsFound() {
        assertThat(LocalApps.commandProblem("sh")).isEmpty();
        assertThat(LocalApps.commandProblem("/bin/sh")).isEmpty();
        assertThat(LocalApps.commandProblem("${SPEC_DIR}/server")).as("known once the run starts").isEmpty();
    }

    @Test
    void aBareNameNotOnThePathSaysSo() {
        assertThat(LocalApps.commandProblem("no-such-program-pacer")).hasValueSatisfying(p ->
                assertThat(p.message()).contains("'no-such-program-pacer' is not on PATH", "give the program's path"));
    }
}
