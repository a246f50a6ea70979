package dev.pacer.engine.agents;

import java.io.IOException;
import java.net.URI;
import java.util.Optional;

import com.fasterxml.jackson.core.JacksonException;
import dev.pacer.contract.AgentClock;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.ContractJson;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.contract.RunRequest;
import dev.pacer.contract.RunStart;
import dev.pacer.contract.RunWindow;

/**
 * Speaks the agent contract (docs/design.md; the records of {@code dev.pacer.contract}) to one agent, over HTTP only: the engine shares no class with the images, so
 * any server implementing the contract is measurable. The transport decides how requests get there.
 */
public final class AgentClient {
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
            return transport.get(AgentContract.HEALTHZ).statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    public AgentInfo info() throws IOException {
        return json(transport.get(AgentContract.INFO), AgentContract.INFO, AgentInfo.class);
    }

    /** {@code GET /pacer/v1/clock}: the agent's wall clock. */
    public AgentClock clock() throws IOException {
        return json(transport.get(AgentContract.CLOCK), AgentContract.CLOCK, AgentClock.class);
    }

    /** The interval log of a series ({@code null}: the default series). */
    public String histograms(String series) throws IOException {
        String path = AgentContract.HISTOGRAMS + (series == null ? "" : "?series=" + series);
        return text(transport.get(path), path);
    }

    /** {@code GET /pacer/v1/resources} as JSON text; empty when this agent does not sample its process (404). */
    public Optional<String> resources() throws IOException {
        AgentTransport.Response response = transport.get(AgentContract.RESOURCES);
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        return Optional.of(text(response, AgentContract.RESOURCES));
    }

    /** {@code GET /metrics}, as text. */
    public String metricsText() throws IOException {
        return text(transport.get(AgentContract.METRICS), AgentContract.METRICS);
    }

    /** {@code POST /pacer/v1/run}: answered 202 with the run's first report; 409 when this agent already took a run. */
    public LoadRunStatus postRun(RunRequest run) throws IOException {
        AgentTransport.Response response = transport.postJson(AgentContract.RUN, ContractJson.MAPPER.writeValueAsBytes(run));
        if (response.statusCode() != AgentContract.RUN_ACCEPTED) {
            throw new AgentException("POST " + where() + " /pacer/v1/run answered " + response.statusCode() + ": " + response.body(),
                    response.statusCode());
        }
        return ContractJson.MAPPER.readValue(response.body(), LoadRunStatus.class);
    }

    /**
     * {@code POST /pacer/v1/run/start}: answered 202 with the run's report; {@link AgentContract#RUN_START_PASSED} when
     * the instant had passed on arrival, 409 when the load began already at another instant.
     */
    public LoadRunStatus postStart(long startAtEpochMs) throws IOException {
        return postAccepted(AgentContract.RUN_START, new RunStart(startAtEpochMs));
    }

    /**
     * {@code POST /pacer/v1/run/window}: answered 202 with the run's status; {@link AgentContract#RUN_WINDOW_REFUSED}
     * when the client cannot move its window there (an earlier start, one passed, a run ended).
     */
    public LoadRunStatus postWindow(long windowStartEpochMs) throws IOException {
        return postAccepted(AgentContract.RUN_WINDOW, new RunWindow(windowStartEpochMs));
    }

    /** A POST to a client's run, answered 202 with its status; any other answer is an {@link AgentException} with its code. */
    private LoadRunStatus postAccepted(String path, Object body) throws IOException {
        AgentTransport.Response response = transport.postJson(path, ContractJson.MAPPER.writeValueAsBytes(body));
        if (response.statusCode() != AgentContract.RUN_ACCEPTED) {
            throw new AgentException("POST " + where() + " " + path + " answered " + response.statusCode() + ": " + response.body(),
                    response.statusCode());
        }
        return ContractJson.MAPPER.readValue(response.body(), LoadRunStatus.class);
    }

    /** {@code GET /pacer/v1/run}. */
    public LoadRunStatus runStatus() throws IOException {
        return json(transport.get(AgentContract.RUN), AgentContract.RUN, LoadRunStatus.class);
    }

    private <T> T json(AgentTransport.Response response, String path, Class<T> type) throws IOException {
        return ContractJson.MAPPER.readValue(text(response, path), type);
    }

    private String text(AgentTransport.Response response, String path) throws AgentException {
        if (response.statusCode() != 200) {
            throw new AgentException(where() + " " + path + " answered " + response.statusCode(), response.statusCode());
        }
        return response.body();
    }

    /**
     * Whether a failed call got no answer at all (refused connection, timeout, the API server's proxy failing to reach
     * the pod), so that asking again may help; an answer outside the contract, or one that cannot be read, is not.
     */
    public static boolean noAnswer(IOException e) {
        return !(e instanceof AgentException) && !(e instanceof JacksonException);
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
