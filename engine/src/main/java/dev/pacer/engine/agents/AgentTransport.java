package dev.pacer.engine.agents;

import java.io.IOException;

/**
 * How requests reach one agent: straight over HTTP ({@link HttpAgentTransport}), or through something in between
 * such as the Kubernetes API server's pod proxy. Paths are the contract's, e.g. {@code /pacer/v1/info}.
 */
public interface AgentTransport {
    /** An HTTP answer: status code and body as text. */
    record Response(int statusCode, String body) {
    }

    Response get(String pathAndQuery) throws IOException;

    Response postJson(String path, byte[] json) throws IOException;

    /** Where the agent is, for messages: a URL or a pod name. */
    String describe();
}
