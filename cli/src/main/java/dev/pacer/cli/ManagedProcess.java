package dev.pacer.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.pacer.contract.CpuList;


/**
 * One process the local orchestrator started: a JVM running an application, pinned with taskset when CPUs are given,
 * its output in a log file, its ports read from the ready file the agent writes ({@code PACER_READY_FILE}).
 */
final class ManagedProcess implements AutoCloseable {
    static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final String role;
    private final Process process;
    private final Path logFile;
    private final Path readyFile;

    private ManagedProcess(String role, Process process, Path logFile, Path readyFile) {
        this.role = role;
        this.process = process;
        this.logFile = logFile;
        this.readyFile = readyFile;
    }

    static ManagedProcess start(String role, LocalApps.App app, List<Integer> cpus, List<String> jvmOptions,
                                List<String> args, Map<String, String> env, Path workDirectory) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(LocalApps.classDataSharingOptions(LocalApps.libDirectory(app), role, jvmOptions));
        command.add("-cp");
        command.add(LocalApps.libDirectory(app) + "/*");
        command.add(app.mainClass());
        command.addAll(args);
        return startCommand(role, command, cpus, env, workDirectory);
    }

    /** Any program: a server's own command, the kernel probe. */
    static ManagedProcess startCommand(String role, List<String> program, List<Integer> cpus, Map<String, String> env,
                                       Path workDirectory) throws IOException {
        Path logFile = workDirectory.resolve("logs").resolve(role + ".log");
        Path readyFile = workDirectory.resolve("logs").resolve(role + ".ready");
        Files.createDirectories(logFile.getParent());
        Files.deleteIfExists(readyFile);
        List<String> command = new ArrayList<>();
        if (cpus != null && !cpus.isEmpty()) {
            command.addAll(List.of("taskset", "-c", CpuList.format(cpus)));
        }
        command.addAll(program);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(env);
        builder.environment().put("PACER_ADMIN_PORT", "0");
        builder.environment().put("PACER_READY_FILE", readyFile.toString());
        Files.writeString(logFile, "# " + String.join(" ", command) + "\n");
        return new ManagedProcess(role, builder.start(), logFile, readyFile);
    }

    /** The file the agent writes its ports to once ready ({@code {"adminPort":N,"appPort":M}}). */
    Path readyFile() {
        return readyFile;
    }

    /** ", code N: <the exceptions the log names>", for a one-glance error. */
    String exitSummary() {
        StringBuilder summary = new StringBuilder();
        if (!process.isAlive()) {
            summary.append(" with code ").append(process.exitValue());
        }
        try {
            List<String> causes = Files.readAllLines(logFile).stream()
                    .filter(l -> l.contains(": cannot start: ") || l.startsWith("Exception in thread") || l.startsWith("Caused by:")
                            || l.startsWith("pacer-probe: ") && !l.contains(" ready") && !l.contains("attached to "))
                    .map(String::trim).distinct().toList();
            if (!causes.isEmpty()) {
                summary.append(": ").append(String.join(" / ", causes.subList(Math.max(0, causes.size() - 2), causes.size())));
            }
        } catch (IOException e) {
            // no log: the code says enough
        }
        return summary.toString();
    }

    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()).stream().map(l -> "  | " + l).toList());
        } catch (IOException e) {
            return "  | (no log: " + e.getMessage() + ")";
        }
    }

    String role() {
        return role;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM, then SIGKILL after the grace period; waits for the exit. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
