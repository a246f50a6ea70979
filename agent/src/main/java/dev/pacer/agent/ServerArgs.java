package dev.pacer.agent;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of the pacer servers: {@code --port=N} (default {@value #DEFAULT_PORT}, 0 for a free port),
 * {@code --mode=NAME} where a server has modes, {@code --max-threads=N}. Unknown options are an error that lists
 * the known ones.
 */
public record ServerArgs(int port, String mode, int maxThreads) {
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;

    public static ServerArgs parse(String[] args, Set<String> modes, String defaultMode) {
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
                default -> throw new IllegalArgumentException("unknown option --" + option.getKey()
                        + " (options: --port, --mode, --max-threads)");
            }
        }
        return new ServerArgs(port, mode, maxThreads);
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
