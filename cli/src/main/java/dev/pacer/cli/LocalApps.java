package dev.pacer.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The applications the local orchestrator starts, by name, and where their jars are: {@code <module>/target/app/lib}
 * under the pacer home ({@code -Dpacer.home}, set by the {@code ./pacer} launcher, else the working directory).
 * A spec's {@code server.image} selects a server when it is a name below or an image whose name contains one
 * ({@code pacer/server-jetty12:0.1.0} → jetty12).
 */
public final class LocalApps {
    public record App(String name, String module, String mainClass) {
    }

    public static final App LOADGEN = new App("loadgen", "loadgen-image", "dev.pacer.loadgen.LoadGeneratorAgent");
    /** Order matters: the first name contained in an image wins. */
    public static final List<App> SERVERS = List.of(
            new App("jetty12", "server-images/jetty12", "dev.pacer.server.jetty12.Jetty12Server"),
            new App("jetty11", "server-images/jetty11", "dev.pacer.server.jetty11.Jetty11Server"),
            new App("loom", "server-images/loom", "dev.pacer.server.loom.LoomServer"));

    private LocalApps() {
    }

    public static Optional<App> serverFor(String image) {
        if (image == null) {
            return Optional.empty();
        }
        String lower = image.toLowerCase(Locale.ROOT);
        return SERVERS.stream().filter(app -> lower.contains(app.name())).findFirst();
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
        return Map.of("jetty12", SERVERS.get(0), "jetty11", SERVERS.get(1), "loom", SERVERS.get(2), "loadgen", LOADGEN);
    }
}
