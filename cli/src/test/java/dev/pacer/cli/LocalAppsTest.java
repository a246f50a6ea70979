package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

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

    @Test
    void everyApplicationOfTheOneListIsAModuleWithItsMainClass() {
        Path repository = Path.of("..").toAbsolutePath().normalize();
        assertThat(LocalApps.SERVERS).extracting(LocalApps.App::name).contains("jetty12", "jetty12-ee9", "jetty11", "loom")
                .doesNotContain(LocalApps.LOADGEN.name());
        assertThat(LocalApps.byName()).hasSize(LocalApps.SERVERS.size() + 1);
        for (LocalApps.App app : LocalApps.byName().values()) {
            assertThat(repository.resolve(app.module()).resolve("pom.xml")).as(app.name()).isRegularFile();
            assertThat(repository.resolve(app.module()).resolve("src/main/java").resolve(app.mainClass().replace('.', '/') + ".java"))
                    .as(app.name()).isRegularFile();
        }
        assertThat(LocalApps.serverFor("pacer/server-jetty12-ee9:0.1.0")).hasValueSatisfying(a -> assertThat(a.name()).isEqualTo("jetty12-ee9"));
    }
}
