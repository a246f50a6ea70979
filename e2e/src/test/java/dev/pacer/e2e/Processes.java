package dev.pacer.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.contract.RunRequest;
import dev.pacer.engine.agents.AgentClient;
import org.assertj.core.api.Assertions;

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
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
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

    /** Shell busy loops keeping CPUs busy, each ending by itself; closing them stops them and whatever they started. */
    record BusyLoops(List<Process> loops) implements AutoCloseable {
        /** Until every loop has ended by itself. */
        void waitFor() throws InterruptedException {
            for (Process loop : loops) {
                loop.waitFor();
            }
        }

        @Override
        public void close() {
            for (Process loop : loops) {
                loop.descendants().forEach(ProcessHandle::destroyForcibly);
                loop.destroyForcibly();
            }
        }
    }

    /** A busy loop on each CPU named, at the niceness given for it, each ending by itself after {@code seconds}. */
    static BusyLoops busyLoops(Map<Integer, Integer> niceByCpu, int seconds) throws IOException {
        BusyLoops started = new BusyLoops(new ArrayList<>());
        try {
            for (Map.Entry<Integer, Integer> cpu : niceByCpu.entrySet()) {
                started.loops().add(new ProcessBuilder("taskset", "-c", cpu.getKey().toString(), "nice", "-n", cpu.getValue().toString(),
                        "timeout", Integer.toString(seconds), "sh", "-c", "while :; do :; done").redirectErrorStream(true).start());
            }
            return started;
        } catch (IOException | RuntimeException e) {
            started.close();
            throw e;
        }
    }

    /** A busy loop on every CPU of the machine, each at the niceness {@code niceOfCpu} gives its CPU. */
    static BusyLoops busyLoopsOnEveryCpu(IntUnaryOperator niceOfCpu, int seconds) throws IOException {
        Map<Integer, Integer> niceByCpu = new TreeMap<>();
        for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++) {
            niceByCpu.put(cpu, niceOfCpu.applyAsInt(cpu));
        }
        return busyLoops(niceByCpu, seconds);
    }

    static Started loadgen(String cpus) throws IOException, InterruptedException {
        return start("loadgen-image", "dev.pacer.loadgen.LoadGeneratorAgent", cpus, Map.of());
    }

    /** A JDK HTTP server on a free loopback port, started, answering every request with {@code handler} on 64 threads. */
    static com.sun.net.httpserver.HttpServer jdkServer(com.sun.net.httpserver.HttpHandler handler) throws IOException {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress("127.0.0.1", 0), 1024);
        ExecutorService threads = Executors.newFixedThreadPool(64);
        server.setExecutor(threads);
        server.createContext("/", handler);
        server.start();
        return server;
    }

    /** Stops a {@link #jdkServer} and its threads. */
    static void stop(com.sun.net.httpserver.HttpServer server) {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }

    /**
     * Arms a load generator with {@code run} (posted without {@code startAt}), waits until it says it is armed, then
     * starts it on the first period boundary at least a second away, as the run protocol does.
     *
     * @return the {@code startAt} it took
     */
    static long armThenStart(AgentClient agent, RunRequest run, long periodMs) throws Exception {
        Assertions.assertThat(run.startAtEpochMs()).as("posted without a start").isZero();
        agent.postRun(run);
        long deadline = System.currentTimeMillis() + 60_000;
        LoadRunStatus runStatus = agent.runStatus();
        while (runStatus.state() == LoadRunStatus.State.ARMING) {
            Assertions.assertThat(System.currentTimeMillis()).as("armed within 60 s").isLessThan(deadline);
            Thread.sleep(20);
            runStatus = agent.runStatus();
        }
        Assertions.assertThat(runStatus.state()).as("armed: " + runStatus.failure()).isEqualTo(LoadRunStatus.State.ARMED);
        long startAt = ((System.currentTimeMillis() + 1000) / periodMs + 1) * periodMs;
        agent.postStart(startAt);
        return startAt;
    }

    /** Waits for a load generator's run to end, failing the test past {@code deadlineEpochMs}. */
    static LoadRunStatus awaitDone(AgentClient agent, long deadlineEpochMs) throws Exception {
        LoadRunStatus runStatus = agent.runStatus();
        while (runStatus.state() != LoadRunStatus.State.DONE) {
            Assertions.assertThat(System.currentTimeMillis()).as("run finished in time").isLessThan(deadlineEpochMs);
            Thread.sleep(200);
            runStatus = agent.runStatus();
        }
        return runStatus;
    }

    /** The whole answer of the tests' JDK servers: 200 "ok", and the exchange closed. */
    static void answerOk(com.sun.net.httpserver.HttpExchange exchange) throws IOException {
        byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
        exchange.close();
    }

    private Processes() {
    }
}
