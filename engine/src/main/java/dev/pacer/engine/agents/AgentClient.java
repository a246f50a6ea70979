package dev.pacer.engine.agents;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Speaks the agent contract (DESIGN.md) to one agent, over HTTP only: the engine shares no class with the images, so
 * any server implementing the contract is measurable. Every call has a connect and a request timeout.
 */
public final class AgentClient {
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1).build();

    private final URI baseUri;

    /** @param baseUri e.g. {@code http://127.0.0.1:9090} */
    public AgentClient(URI baseUri) {
        this.baseUri = baseUri;
    }

    public URI baseUri() {
        return baseUri;
    }

    /** {@code GET /healthz} answered 200. */
    public boolean isHealthy() {
        try {
            return get("/healthz").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    public Map<String, Object> info() throws IOException {
        return json(get("/pacer/v1/info"), "/pacer/v1/info");
    }

    /** The interval log of a series ({@code null}: the default series). */
    public String histograms(String series) throws IOException {
        String path = "/pacer/v1/histograms" + (series == null ? "" : "?series=" + series);
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new AgentException(baseUri + path + " answered " + response.statusCode());
        }
        return response.body();
    }

    /** {@code GET /metrics}, as text. */
    public String metricsText() throws IOException {
        HttpResponse<String> response = get("/metrics");
        if (response.statusCode() != 200) {
            throw new AgentException(baseUri + "/metrics answered " + response.statusCode());
        }
        return response.body();
    }

    public Map<String, Object> postRun(Map<String, Object> run) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(baseUri.resolve("/pacer/v1/run")).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(run))).build();
        HttpResponse<String> response = send(request);
        if (response.statusCode() != 202) {
            throw new AgentException("POST " + baseUri + "/pacer/v1/run answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readValue(response.body(), new TypeReference<>() { });
    }

    public Map<String, Object> runStatus() throws IOException {
        return json(get("/pacer/v1/run"), "/pacer/v1/run");
    }

    private Map<String, Object> json(HttpResponse<String> response, String path) throws IOException {
        if (response.statusCode() != 200) {
            throw new AgentException(baseUri + path + " answered " + response.statusCode());
        }
        return JSON.readValue(response.body(), new TypeReference<>() { });
    }

    private HttpResponse<String> get(String path) throws IOException {
        return send(HttpRequest.newBuilder(baseUri.resolve(path)).timeout(REQUEST_TIMEOUT).GET().build());
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** An agent answered, but not as the contract says. */
    public static final class AgentException extends IOException {
        public AgentException(String message) {
            super(message);
        }
    }
}
