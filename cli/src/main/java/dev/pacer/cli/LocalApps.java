package dev.pacer.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
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

    /** The one list of applications, shared with the {@code ./pacer} launcher that builds them. */
    static final String APPS_RESOURCE = "local-apps.tsv";
    private static final List<App> APPS = read(APPS_RESOURCE);
    public static final App LOADGEN = APPS.stream().filter(app -> app.name().equals("loadgen")).findFirst().orElseThrow();
    /** Order matters: the first name contained in an image wins. */
    public static final List<App> SERVERS = APPS.stream().filter(app -> app != LOADGEN).toList();

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
        List<FieldProblem> problems = new ArrayList<>();
        RunPlan.ServerRole server = plan.server();
        if (server.command() == null && serverFor(server.image()).isEmpty()) {
            problems.add(new FieldProblem("spec.server.image", "unknown server '" + server.image()
                    + "' for a local run; use one of " + knownServers() + " (or an image whose name contains one), "
                    + "or give spec.server.command to start any program"));
        }
        if (server.command() != null && !server.command().isEmpty()) {
            commandProblem(server.command().getFirst()).ifPresent(problems::add);
        }
        if (plan.tls() != null) {
            Optional<App> app = server.command() == null ? serverFor(server.image()) : Optional.empty();
            if (app.isPresent() && !HTTPS_SERVERS.contains(app.get().name())) {
                problems.add(new FieldProblem("spec.request.scheme", "is https, but the " + app.get().name() + " server serves http only: "
                        + "use one of " + String.join(", ", HTTPS_SERVERS) + ", or a spec.server.command that reads the certificate "
                        + "and key from PACER_TLS_CERT and PACER_TLS_KEY"));
            }
            if (app.isPresent() && app.get().name().equals("loom") && plan.clients().stream().anyMatch(c -> "h2".equals(c.httpVersion()))) {
                problems.add(new FieldProblem("spec.clients.httpVersion", "is h2, but loom serves HTTP/1.1 alone over https (the JDK's "
                        + "HttpsServer): use http/1.1, or one of jetty12, jetty12-ee9, jetty11"));
            }
            if (plan.tls().secretName() != null) {
                problems.add(new FieldProblem("spec.tls.certificate.secretName", "names a Kubernetes Secret: locally give "
                        + "spec.tls.certificate.directory (tls.crt and tls.key in PEM), or leave spec.tls.certificate unset to have one "
                        + "made for the run"));
            }
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

    /** pacer's servers that serve https ({@code --tls-cert}, {@code --tls-key}). */
    static final List<String> HTTPS_SERVERS = List.of("jetty12", "jetty12-ee9", "jetty11", "loom");

    /** How the programs written in Go (the kernel probe, the Go peer server) get built. */
    static final String GO_NEEDED = "it is built by ./pacer (or 'make build') when Go 1.26 or newer is on PATH: install Go "
            + "(https://go.dev/dl, or your distribution's golang package), then run ./pacer again";

    /** A server program that cannot be started: not an executable file, or (a bare name) not on PATH. */
    static Optional<FieldProblem> commandProblem(String program) {
        if (program.contains("${")) {
            return Optional.empty();   // a path known only once the run has its directory
        }
        boolean found = program.contains("/") ? Files.isExecutable(Path.of(program))
                : Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
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
        } catch (IOException e) {
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

    /**
     * The JVM options giving a role of an app its own dynamic class-data archive, beside the app's jars: once a run
     * has made it (at the JVM's exit), the JVM starts in about half the time (Jetty 12 ready in 1.1 s rather than 2.1 s
     * on one core). Only the start changes: the JVM maps the classes it would have loaded from the jars. It checks the
     * archive against its own version and the classpath and makes it again when either changed. One per role, so that
     * two clients of a run never write the same file; none when the spec's JVM options choose their own sharing.
     */
    static List<String> classDataSharingOptions(Path libDirectory, String role, List<String> jvmOptions) throws IOException {
        if (jvmOptions.stream().anyMatch(option -> option.startsWith("-Xshare") || option.contains("SharedArchiveFile")
                || option.startsWith("-XX:AOTCache") || option.contains("ArchiveClassesAtExit"))) {
            return List.of();
        }
        Path archives = Files.createDirectories(libDirectory.resolveSibling("class-data"));
        return List.of("-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + archives.resolve(role + ".jsa"));
    }

    public static boolean isBuilt(App app) {
        return Files.isDirectory(libDirectory(app));
    }

    private static List<App> read(String resource) {
        try (InputStream in = LocalApps.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("pacer's build lost " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(line -> line.split("\t"))
                    .map(fields -> new App(fields[0], fields[1], fields[2])).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, App> byName() {
        Map<String, App> apps = new LinkedHashMap<>();
        SERVERS.forEach(app -> apps.put(app.name(), app));
        apps.put(LOADGEN.name(), LOADGEN);
        return apps;
    }
}
