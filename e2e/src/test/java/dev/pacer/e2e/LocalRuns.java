package dev.pacer.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.pacer.cli.PacerCommand;
import dev.pacer.engine.report.ResultDocument;

/** Runs {@code pacer run} in-process on a spec written from a template, as a user would from the shell. */
final class LocalRuns {
    record Outcome(int exitCode, String out, String err, Path directory) {
        ResultDocument document() throws IOException {
            return ResultDocument.read(directory);
        }
    }

    static Outcome run(Path workDirectory, String name, String specYaml) throws IOException {
        Path spec = workDirectory.resolve(name + ".yaml");
        Files.writeString(spec, specYaml);
        Path output = workDirectory.resolve(name);
        return pacer(output, "run", spec.toString(), "--output", output.toString());
    }

    static Outcome pacer(Path output, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PacerCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), output);
    }

    /** A one-client spec. */
    static String spec(String name, String image, String args, String rate, String path, String warmup, String duration) {
        return """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: %s}
                spec:
                  server: {image: %s, args: [%s], cpus: "1"}
                  clients: {count: 1, rate: "%s", connections: 4, cpus: "1"}
                  request: {path: "%s"}
                  warmup: %s
                  duration: %s
                  timeout: 2m
                  criteria: {rateTolerance: 3%%, maxSendLagP99: 50ms}
                """.formatted(name, image, args, rate, path, warmup, duration);
    }

    /** A port free on this machine now, for a server the run starts. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private LocalRuns() {
    }
}
