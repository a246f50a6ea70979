package dev.pacer.e2e;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.engine.agents.AgentClient;

/** Starts a pacer application as a real process, pinned with taskset, and stops it. */
final class Processes {
    static final Path HOME = Path.of(System.getProperty("pacer.home", "..")).toAbsolutePath().normalize();

    record Started(Process process, int adminPort, int appPort, Path log) implements AutoCloseable {
        AgentClient agent() {
            return new AgentClient(URI.create("http://127.0.0.1:" + adminPort));
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    static Started start(String module, String mainClass, String cpus, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("pacer-e2e");
        Path ready = dir.resolve("ready.json");
        Path log = dir.resolve("process.log");
        List<String> command = new ArrayList<>(List.of("taskset", "-c", cpus,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                HOME.resolve(module).resolve("target/app/lib") + "/*", mainClass));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        builder.environment().put("PACER_ADMIN_PORT", "0");
        builder.environment().put("PACER_READY_FILE", ready.toString());
        Process process = builder.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Files.exists(ready)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IOException(mainClass + " did not start:\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
        JsonNode ports = new ObjectMapper().readTree(ready.toFile());
        return new Started(process, ports.path("adminPort").asInt(), ports.path("appPort").asInt(), log);
    }

    static Started loadgen(String cpus) throws IOException, InterruptedException {
        return start("loadgen-image", "dev.pacer.loadgen.LoadGeneratorAgent", cpus, Map.of());
    }

    private Processes() {
    }
}
