package dev.pacer.operator.artifacts;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.pacer.engine.report.ResultsDirectory;

/**
 * Serves the artifact store read-only beside {@code /metrics}: {@code GET /artifacts/NAMESPACE/NAME/UID/} lists a
 * run's files as JSON ({@code {"files": [{"name", "bytes"}]}}), {@code GET /artifacts/NAMESPACE/NAME/UID/FILE} gives
 * one. Anything else is 404; nothing outside the store is reachable (segments are checked, not resolved blindly).
 */
public final class ArtifactsHandler implements HttpHandler {
    public static final String PREFIX = "/artifacts/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ArtifactStore store;

    public ArtifactsHandler(ArtifactStore store) {
        this.store = store;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                send(exchange, 405, "text/plain", "only GET\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String path = exchange.getRequestURI().getPath();
            if (!path.startsWith(PREFIX)) {
                send(exchange, 404, "text/plain", "not found; runs' artifacts are under /artifacts/NAMESPACE/NAME/UID/\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String[] segments = path.substring(PREFIX.length()).split("/", -1);
            Optional<Path> dir = segments.length == 4 ? store.directory(segments[0], segments[1], segments[2]) : Optional.empty();
            if (dir.isEmpty()) {
                send(exchange, 404, "text/plain", "no artifacts here\n".getBytes(StandardCharsets.UTF_8));
            } else if (segments[3].isEmpty()) {
                List<Map<String, Object>> files = new ArrayList<>();
                for (Path file : ArtifactStore.listFiles(dir.get())) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("name", file.getFileName().toString());
                    entry.put("bytes", Files.size(file));
                    files.add(entry);
                }
                send(exchange, 200, "application/json", JSON.writeValueAsBytes(Map.of("files", files)));
            } else if (ResultsDirectory.isFileName(segments[3]) && Files.isRegularFile(dir.get().resolve(segments[3]))) {
                String name = segments[3];
                String type = name.endsWith(".html") ? "text/html; charset=utf-8"
                        : name.endsWith(".json") ? "application/json" : "text/plain; charset=utf-8";
                send(exchange, 200, type, Files.readAllBytes(dir.get().resolve(name)));
            } else {
                send(exchange, 404, "text/plain", "no such file\n".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
