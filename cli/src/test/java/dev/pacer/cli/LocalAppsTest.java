package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void aRoleStartsFromTheClassDataArchiveItsFirstJvmMadeOnExit(@TempDir Path app) throws Exception {
        Path lib = Files.createDirectories(app.resolve("lib"));
        List<String> options = LocalApps.classDataSharingOptions(lib, "client-1", List.of("-Xmx64m"));
        Path archive = app.resolve("class-data/client-1.jsa");
        assertThat(options).containsExactly("-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + archive);

        String classpath = jarsOfTheCli(app);
        assertThat(javaLoadingClasses(options, classpath)).as("the first JVM loads pacer's classes from its jar")
                .containsPattern("dev\\.pacer\\.cli\\.PacerCommand source: (jar:)?file:");
        assertThat(archive).as("made as the first JVM exited").isNotEmptyFile();
        assertThat(javaLoadingClasses(options, classpath)).as("the next one maps them from the archive")
                .contains("dev.pacer.cli.PacerCommand source: shared objects file (top)");
    }

    @Test
    void jvmOptionsChoosingTheirOwnSharingGetNoArchive(@TempDir Path app) throws IOException {
        for (String own : List.of("-Xshare:off", "-XX:SharedArchiveFile=/tmp/mine.jsa", "-XX:AOTCache=/tmp/app.aot", "-XX:ArchiveClassesAtExit=a.jsa")) {
            assertThat(LocalApps.classDataSharingOptions(app.resolve("lib"), "server", List.of("-Xmx1g", own))).as(own).isEmpty();
        }
    }

    /** {@code pacer --help} in a JVM of its own, logging where each class came from. */
    private static String javaLoadingClasses(List<String> options, String classpath) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(options);
        command.addAll(List.of("-Xlog:class+load=info", "-cp", classpath, PacerCommand.class.getName(), "--help"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(output).isZero();
        return output;
    }

    /** The CLI as {@code target/app/lib} holds it, jars only (an archive keeps classes from jars, never directories). */
    private static String jarsOfTheCli(Path work) {
        List<String> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar")) {
                jars.add(entry);
            }
        }
        Path cli = work.resolve("pacer-cli.jar");
        Path main = Path.of(PacerCommand.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        int code = ToolProvider.findFirst("jar").orElseThrow().run(System.out, System.err, "--create", "--file", cli.toString(), "-C", main.toString(), ".");
        assertThat(code).isZero();
        jars.addFirst(cli.toString());
        return String.join(File.pathSeparator, jars);
    }
}
