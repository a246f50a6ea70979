package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a user sees when a local run cannot go through, and that nothing is left running after Ctrl-C. */
class LocalRunFailuresE2ETest {
    @TempDir
    Path work;

    @Test
    void busyPortIsAClearErrorAndStopsTheRest() throws Exception {
        try (ServerSocket busy = new ServerSocket()) {
            busy.bind(new InetSocketAddress("0.0.0.0", 0));
            Path spec = work.resolve("busy.yaml");
            Files.writeString(spec, LocalRuns.spec("busy", "jetty12", "--mode=core", "100", "/", "1s", "2s"));
            LocalRuns.Outcome outcome = LocalRuns.pacer(work.resolve("out"), "run", spec.toString(), "--output",
                    work.resolve("out").toString(), "--server-port", Integer.toString(busy.getLocalPort()));
            assertThat(outcome.exitCode()).isEqualTo(3);
            assertThat(outcome.err()).contains("run failed").contains("server exited before it was ready with code 1")
                    .contains("cannot start").contains("Address already in use");
            assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList()).isEmpty();
        }
    }

    @Test
    void interruptedRunStopsEveryProcessItStarted() throws Exception {
        Path spec = work.resolve("long.yaml");
        Files.writeString(spec, LocalRuns.spec("long", "jetty12", "--mode=core", "100", "/", "2s", "60s"));
        Path output = work.resolve("out.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dpacer.home=" + Processes.HOME, "-cp", Processes.HOME.resolve("cli/target/app/lib") + "/*",
                "dev.pacer.cli.PacerCommand", "run", spec.toString(), "--output", work.resolve("out").toString()));
        Process pacer = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(output, StandardCharsets.UTF_8).contains("WarmingUp") || pacer.descendants().count() < 2) {
                assertThat(System.nanoTime()).as("run reached warm-up:\n" + Files.readString(output)).isLessThan(deadline);
                assertThat(pacer.isAlive()).as(Files.readString(output)).isTrue();
                Thread.sleep(100);
            }
            List<ProcessHandle> started = pacer.descendants().toList();
            assertThat(started).hasSizeGreaterThanOrEqualTo(2);
            pacer.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the JVM runs its shutdown hooks
            assertThat(pacer.waitFor(30, TimeUnit.SECONDS)).isTrue();
            for (ProcessHandle process : started) {
                process.onExit().get(15, TimeUnit.SECONDS);
                assertThat(process.isAlive()).as("pid %d still alive", process.pid()).isFalse();
            }
        } finally {
            pacer.destroyForcibly();
        }
    }

    static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
