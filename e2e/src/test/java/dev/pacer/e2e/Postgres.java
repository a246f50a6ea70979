package dev.pacer.e2e;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL for a test: Debian's server binaries (package postgresql, which scripts/install-test-deps.sh
 * installs), a cluster of its own in a temporary directory, on a free loopback port, trust authentication for the
 * user {@value #USER}. PostgreSQL refuses to run as root: as root, it runs as the package's user {@code postgres}.
 */
final class Postgres implements AutoCloseable {
    static final String USER = "pacer";
    private static final long START_SECONDS = 60;

    private final Path bin;
    private final Path data;
    private final int port;
    private final boolean asPostgresUser;

    private Postgres(Path bin, Path data, int port, boolean asPostgresUser) {
        this.bin = bin;
        this.data = data;
        this.port = port;
        this.asPostgresUser = asPostgresUser;
    }

    /** A cluster in a directory of its own under the system's temporary directory (one JUnit's would be root's alone). */
    static Postgres start() throws IOException, InterruptedException {
        Path bin = binaries();
        Path directory = Files.createTempDirectory("pacer-postgres");
        boolean root = "root".equals(System.getProperty("user.name"));
        Path data = directory.resolve("data");
        Files.createDirectories(data);
        if (root) {
            run(List.of("chown", "-R", "postgres:postgres", directory.toString()), false, directory);
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Postgres postgres = new Postgres(bin, data, port, root);
        postgres.command(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync"), directory);
        postgres.command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-w", "-t", Long.toString(START_SECONDS),
                "-l", directory.resolve("postgres.log").toString(), "-o",
                "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1 -c fsync=off", "start"), directory);
        return postgres;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** The newest Debian server binaries. */
    private static Path binaries() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                Path newest = versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                        .max(Comparator.comparingInt(v -> Integer.parseInt(v.getFileName().toString().replaceAll("\\D", "0")))).orElse(null);
                if (newest != null) {
                    return newest.resolve("bin");
                }
            }
        }
        throw new IOException("no PostgreSQL server in /usr/lib/postgresql: scripts/install-test-deps.sh installs Debian's (apt-get install postgresql)");
    }

    private void command(List<String> command, Path directory) throws IOException, InterruptedException {
        run(command, asPostgresUser, directory);
    }

    private static void run(List<String> command, boolean asPostgresUser, Path directory) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgresUser) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Process process = new ProcessBuilder(full).directory(directory.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(START_SECONDS + 30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", full) + " failed: " + output);
        }
    }

    /** Stops the server and removes its directory. */
    @Override
    public void close() throws IOException, InterruptedException {
        Path directory = data.getParent();
        try {
            command(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"), directory);
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
