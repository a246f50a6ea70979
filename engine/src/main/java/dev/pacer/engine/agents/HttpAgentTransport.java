package dev.pacer.engine.agents;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain HTTP to {@code baseUri} (a local process, or a pod IP from inside the cluster); every call is time-bounded. */
public final class HttpAgentTransport implements AgentTransport {
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1).build();

    private final URI baseUri;

    /** @param baseUri e.g. {@code http://127.0.0.1:9090} */
    public HttpAgentTransport(URI baseUri) {
        this.baseUri = baseUri;
    }

    @Override
    public Response get(String pathAndQuery) throws IOException {
        return send(HttpRequest.newBuilder(baseUri.resolve(pathAndQuery)).timeout(REQUEST_TIMEOUT).GET().build());
    }

    @Override
    public Response postJson(String path, byte[] json) throws IOException {
        return send(HttpRequest.newBuilder(baseUri.resolve(path)).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(json)).build());
    }

    @Override
    public String describe() {
        return baseUri.toString();
    }

    private static Response send(HttpRequest request) throws IOException {
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
