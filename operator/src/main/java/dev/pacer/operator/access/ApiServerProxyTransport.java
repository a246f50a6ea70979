package dev.pacer.operator.access;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.pacer.contract.ContractJson;
import dev.pacer.engine.agents.AgentTransport;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;

/**
 * Reaches an agent through the API server's pod proxy ({@code /api/v1/namespaces/N/pods/P:9090/proxy/...}), with the
 * operator's own credentials: for an operator running outside the cluster's network (development). Needs the RBAC verb
 * {@code get} (and {@code create} for the POST) on {@code pods/proxy}.
 */
public final class ApiServerProxyTransport implements AgentTransport {
    static final long TIMEOUT_SECONDS = 10;

    private final KubernetesClient client;
    private final String namespace;
    private final String pod;
    private final int port;

    public ApiServerProxyTransport(KubernetesClient client, String namespace, String pod, int port) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
        this.port = port;
    }

    String proxyUrl(String pathAndQuery) {
        String master = client.getMasterUrl().toString();
        if (master.endsWith("/")) {
            master = master.substring(0, master.length() - 1);
        }
        return master + "/api/v1/namespaces/" + namespace + "/pods/" + pod + ":" + port + "/proxy" + pathAndQuery;
    }

    @Override
    public Response get(String pathAndQuery) throws IOException {
        return send(client.getHttpClient().newHttpRequestBuilder().uri(proxyUrl(pathAndQuery))
                .timeout(TIMEOUT_SECONDS, TimeUnit.SECONDS).build());
    }

    @Override
    public Response postJson(String path, byte[] json) throws IOException {
        return send(client.getHttpClient().newHttpRequestBuilder().uri(proxyUrl(path)).post("application/json", json)
                .timeout(TIMEOUT_SECONDS, TimeUnit.SECONDS).build());
    }

    @Override
    public String describe() {
        return "pod " + namespace + "/" + pod + ":" + port + " (through the API server)";
    }

    /**
     * The API server's own answer that it could not reach the pod (a Status of 502, 503 or 504, e.g. "error trying to
     * reach service: dial tcp …: connection refused"): no answer from the agent, which never answers so.
     */
    static boolean proxyCouldNotReach(int code, String body) {
        return code >= 502 && code <= 504 && body != null && body.contains("\"kind\":\"Status\"");
    }

    /** The message of a Status, else the body's start. */
    static String statusMessage(String body) {
        try {
            var message = ContractJson.MAPPER.readTree(body).path("message");
            if (message.isTextual()) {
                return message.asText();
            }
        } catch (IOException e) {
            // not JSON: shown as it is
        }
        return body.length() > 200 ? body.substring(0, 200) + "…" : body;
    }

    private Response send(HttpRequest request) throws IOException {
        HttpClient http = client.getHttpClient();
        try {
            HttpResponse<String> response = http.sendAsync(request, String.class).get(TIMEOUT_SECONDS + 2, TimeUnit.SECONDS);
            if (proxyCouldNotReach(response.code(), response.body())) {
                throw new IOException(describe() + ": " + response.code() + " " + statusMessage(response.body()));
            }
            return new Response(response.code(), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IOException(describe() + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(describe() + ": no answer within " + (TIMEOUT_SECONDS + 2) + " s", e);
        }
    }
}
