package dev.pacer.engine.agents;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Speaks the agent contract (DESIGN.md) to one agent, over HTTP only: the engine shares no class with the images, so
 * any server implementing the contract is measurable. The transport decides how requests get there.
 */
public final class AgentClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AgentTransport transport;

    public AgentClient(AgentTransport transport) {
        this.transport = transport;
    }

    /** @param baseUri e.g. {@code http://127.0.0.1:9090} */
    public AgentClient(URI baseUri) {
        this(new HttpAgentTransport(baseUri));
    }

    /** Where the agent is, for messages. */
    public String where() {
        return transport.describe();
    }

    /** {@code GET /healthz} answered 200. */
    public boolean isHealthy() {
        try {
            return transport.get("/healthz").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    public Map<String, Object> info() throws IOException {
        return json(transport.get("/pacer/v1/info"), "/pacer/v1/info");
    }

    /** The interval log of a series ({@code null}: the default series). */
    public String histograms(String series) throws IOException {
        String path = "/pacer/v1/histograms" + (series == null ? "" : "?series=" + series);
        return text(transport.get(path), path);
    }

    /** {@code GET /metrics}, as text. */
    public String metricsText() throws IOException {
        return text(transport.get("/metrics"), "/metrics");
    }

    /** {@code POST /pacer/v1/run}: answered 202 with the run's first report; 409 when this agent already took a run. */
    public Map<String, Object> postRun(Map<String, Object> run) throws IOException {
        AgentTransport.Response response = transport.postJson("/pacer/v1/run", JSON.writeValueAsBytes(run));
        if (response.statusCode() != 202) {
            throw new AgentException("POST " + where() + " /pacer/v1/run answered " + response.statusCode() + ": " + response.body(),
                    response.statusCode());
        }
        return JSON.readValue(response.body(), new TypeReference<>() { });
    }

    public Map<String, Object> runStatus() throws IOException {
        return json(transport.get("/pacer/v1/run"), "/pacer/v1/run");
    }

    private Map<String, Object> json(AgentTransport.Response response, String path) throws IOException {
        return JSON.readValue(text(response, path), new TypeReference<>() { });
    }

    private String text(AgentTransport.Response response, String path) throws AgentException {
        if (response.statusCode() != 200) {
            throw new AgentException(where() + " " + path + " answered " + response.statusCode(), response.statusCode());
        }
        return response.body();
    }

    /** An agent answered, but not as the contract says. */
    public static final class AgentException extends IOException {
        private final int statusCode;

        public AgentException(String message, int statusCode) {
            super(message);
            this.statusCode = statusCode;
        }

        public int statusCode() {
            return statusCode;
        }
    }
}
