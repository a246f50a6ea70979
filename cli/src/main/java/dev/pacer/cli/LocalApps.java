package dev.pacer.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.FieldProblem;
import dev.pacer.engine.plan.RunPlan;

/**
 * The applications the local orchestrator starts, by name, and where their jars are: {@code <module>/target/app/lib}
 * under the pacer home ({@code -Dpacer.home}, set by the {@code ./pacer} launcher, else the working directory).
 * A spec's {@code server.image} selects a server when it is a name below or an image whose name contains one
 * ({@code pacer/server-jetty12:0.1.0} → jetty12, {@code pacer/server-jetty12-ee9:0.1.0} → jetty12-ee9).
 */
public final class LocalApps {
    public record App(String name, String module, String mainClass) {
    }

    public static final App LOADGEN = new App("loadgen", "loadgen-image", "dev.pacer.loadgen.LoadGeneratorAgent");
    /** Order matters: the first name contained in an image wins. */
    public static final List<App> SERVERS = List.of(
            new App("jetty12-ee9", "server-images/jetty12-ee9", "dev.pacer.server.jetty12ee9.Jetty12Ee9Server"),
            new App("jetty12", "server-images/jetty12", "dev.pacer.server.jetty12.Jetty12Server"),
            new App("jetty11", "server-images/jetty11", "dev.pacer.server.jetty11.Jetty11Server"),
            new App("loom", "server-images/loom", "dev.pacer.server.loom.LoomServer"),
            new App("netty", "server-images/netty", "dev.pacer.server.netty.NettyServer"),
            new App("vertx", "server-images/vertx", "dev.pacer.server.vertx.VertxServer"),
            new App("helidon", "server-images/helidon", "dev.pacer.server.helidon.HelidonServer"));

    private LocalApps() {
    }

    public static Optional<App> serverFor(String image) {
        if (image == null) {
            return Optional.empty();
        }
        String lower = image.toLowerCase(Locale.ROOT);
        return SERVERS.stream().filter(app -> lower.contains(app.name())).findFirst();
    }

    /** The kernel probe, built by the probe module ({@code probe/build.sh}). */
    public static Path probeBinary() {
        return home().resolve("probe/target/pacer-probe");
    }

    /**
     * What keeps a plan from running on this machine: an unknown server without a command, a probe that is not
     * built or cannot load without root. Each names its field and the fix.
     */
    public static List<FieldProblem> problems(RunPlan plan) {
        List<FieldProblem> problems = new java.util.ArrayList<>();
        RunPlan.ServerRole server = plan.server();
        if (server.command() == null && serverFor(server.image()).isEmpty()) {
            problems.add(new FieldProblem("spec.server.image", "unknown server '" + server.image()
                    + "' for a local run; use one of " + knownServers() + " (or an image whose name contains one), "
                    + "or give spec.server.command to start any program"));
        }
        if (server.command() != null && !server.command().isEmpty()) {
            commandProblem(server.command().getFirst()).ifPresent(problems::add);
        }
        if (server.measure().probe()) {
            if (!Files.isExecutable(probeBinary())) {
                problems.add(new FieldProblem("spec.server.measure", "is " + server.measure().spec() + " but the kernel probe is not built ("
                        + probeBinary() + "): " + GO_NEEDED + ", or measure: none"));
            } else if (!isRoot()) {
                problems.add(new FieldProblem("spec.server.measure", "is " + server.measure().spec() + ": the kernel probe loads a BPF "
                        + "program and needs root (CAP_BPF and CAP_PERFMON); run pacer with sudo, or measure: none"));
            }
        }
        return problems;
    }

    /** How the programs written in Go (the kernel probe, the Go peer server) get built. */
    static final String GO_NEEDED = "it is built by ./pacer (or 'make build') when Go 1.26 or newer is on PATH: install Go "
            + "(https://go.dev/dl, or your distribution's golang package), then run ./pacer again";

    /** A server program that cannot be started: not an executable file, or (a bare name) not on PATH. */
    static Optional<FieldProblem> commandProblem(String program) {
        if (program.contains("${")) {
            return Optional.empty();   // a path known only once the run has its directory
        }
        boolean found = program.contains("/") ? Files.isExecutable(Path.of(program))
                : java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                        .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, program)));
        if (found) {
            return Optional.empty();
        }
        String where = program.contains("/") ? "is not an executable file (from " + Path.of("").toAbsolutePath() + ")" : "is not on PATH";
        String hint = program.contains("server-images/gohttp") ? ": the Go peer server is missing; " + GO_NEEDED
                : ": give the program's path, or install it";
        return Optional.of(new FieldProblem("spec.server.command[0]", "'" + program + "' " + where + hint));
    }

    static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0");   // effective uid
                }
            }
        } catch (java.io.IOException e) {
            return false;
        }
        return false;
    }

    public static String knownServers() {
        return String.join(", ", SERVERS.stream().map(App::name).toList());
    }

    public static Path home() {
        String home = System.getProperty("pacer.home");
        return Path.of(home == null ? "." : home).toAbsolutePath().normalize();
    }

    public static Path libDirectory(App app) {
        return home().resolve(app.module()).resolve("target/app/lib");
    }

    public static boolean isBuilt(App app) {
        return Files.isDirectory(libDirectory(app));
    }

    static Map<String, App> byName() {
        Map<String, App> apps = new java.util.LinkedHashMap<>();
        SERVERS.forEach(app -> apps.put(app.name(), app));
        apps.put(LOADGEN.name(), LOADGEN);
        return apps;
    }
}
