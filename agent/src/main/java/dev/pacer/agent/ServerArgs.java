package dev.pacer.agent;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.pacer.agent.tls.ServerTls;
import dev.pacer.contract.AgentContract;

/**
 * Command-line options of the pacer servers: {@code --port=N} (default {@value #DEFAULT_PORT}, 0 for a free port),
 * {@code --mode=NAME} where a server has modes, {@code --max-threads=N}; for a server that serves https,
 * {@code --tls-cert=PEM --tls-key=PEM [--tls-protocols=TLSv1.3,TLSv1.2]}, the first two by default from
 * {@value AgentContract#TLS_CERT_ENV} and {@value AgentContract#TLS_KEY_ENV}. Unknown options are an error that lists
 * the known ones.
 *
 * @param tls {@code null}: cleartext
 */
public record ServerArgs(int port, String mode, int maxThreads, ServerTls tls) {
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;
    /** The servers that serve https, for the error a cleartext-only server gives. */
    public static final String HTTPS_SERVERS = "jetty12 (core, ee10, ee9), jetty11, loom";

    public static ServerArgs parse(String[] args, Set<String> modes, String defaultMode) {
        return parse(args, modes, defaultMode, false);
    }

    /** @param servesHttps whether this server takes the {@code --tls-*} options; a server that does not refuses them */
    public static ServerArgs parse(String[] args, Set<String> modes, String defaultMode, boolean servesHttps) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("expected --name=value, got '" + arg + "' (options: --port, --mode, --max-threads)");
            }
            int eq = arg.indexOf('=');
            options.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        int port = DEFAULT_PORT;
        String mode = defaultMode;
        int maxThreads = DEFAULT_MAX_THREADS;
        String certificate = null;
        String key = null;
        List<String> protocols = ServerTls.DEFAULT_PROTOCOLS;
        for (Map.Entry<String, String> option : options.entrySet()) {
            switch (option.getKey()) {
                case "port" -> port = parseInt("--port", option.getValue(), 0, 65535);
                case "max-threads" -> maxThreads = parseInt("--max-threads", option.getValue(), 8, 100_000);
                case "mode" -> {
                    if (!modes.contains(option.getValue())) {
                        throw new IllegalArgumentException("--mode must be one of " + modes + ", was '" + option.getValue() + "'");
                    }
                    mode = option.getValue();
                }
                case "tls-cert", "tls-key", "tls-protocols" -> {
                    if (!servesHttps) {
                        throw new IllegalArgumentException("--" + option.getKey() + ": this server serves http only (https: "
                                + HTTPS_SERVERS + ")");
                    }
                    switch (option.getKey()) {
                        case "tls-cert" -> certificate = option.getValue();
                        case "tls-key" -> key = option.getValue();
                        default -> protocols = List.of(option.getValue().split(","));
                    }
                }
                default -> throw new IllegalArgumentException("unknown option --" + option.getKey()
                        + " (options: --port, --mode, --max-threads" + (servesHttps ? ", --tls-cert, --tls-key, --tls-protocols" : "") + ")");
            }
        }
        if (servesHttps && certificate == null && key == null) {   // as pacer sets them for any server of an https run
            certificate = blankToNull(System.getenv(AgentContract.TLS_CERT_ENV));
            key = blankToNull(System.getenv(AgentContract.TLS_KEY_ENV));
        }
        if ((certificate == null) != (key == null)) {
            throw new IllegalArgumentException("https needs both --tls-cert (the certificate chain, PEM) and --tls-key (its key, PKCS#8 PEM)");
        }
        return new ServerArgs(port, mode, maxThreads, certificate == null ? null : new ServerTls(Path.of(certificate), Path.of(key), protocols));
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    private static int parseInt(String name, String value, int min, int max) {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed < min || parsed > max) {
                throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], was " + parsed);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, was '" + value + "'");
        }
    }
}
