package dev.pacer.operator.access;

import java.net.URI;
import java.util.Locale;

import dev.pacer.contract.HostPort;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.HttpAgentTransport;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * How the operator reaches the agents of a run's pods: one setting ({@code PACER_AGENT_ACCESS}).
 * <ul>
 *   <li>{@link #POD_IP}: straight to {@code http://<pod IP>:9090}, for an operator inside the cluster (the default);</li>
 *   <li>{@link #API_SERVER_PROXY}: through the API server's pod proxy, for an operator outside the pod network.</li>
 * </ul>
 * Either way the clients reach the server by its pod IP: the measured path has no proxy, Service or DNS in it.
 */
public enum AgentAccess {
    POD_IP("podIP"),
    API_SERVER_PROXY("apiServerProxy");

    private final String setting;

    AgentAccess(String setting) {
        this.setting = setting;
    }

    public String setting() {
        return setting;
    }

    /** Reads the setting's value ({@code podIP} or {@code apiServerProxy}, case-insensitive); null or blank gives {@link #POD_IP}. */
    public static AgentAccess parse(String value) {
        if (value == null || value.isBlank()) {
            return POD_IP;
        }
        for (AgentAccess access : values()) {
            if (access.setting.toLowerCase(Locale.ROOT).equals(value.strip().toLowerCase(Locale.ROOT))) {
                return access;
            }
        }
        throw new IllegalArgumentException("PACER_AGENT_ACCESS must be podIP or apiServerProxy, was '" + value + "'");
    }

    public AgentClient agent(KubernetesClient client, Pod pod, int adminPort) {
        return switch (this) {
            case POD_IP -> new AgentClient(new HttpAgentTransport(URI.create("http://" + hostOf(pod) + ":" + adminPort)));
            case API_SERVER_PROXY -> new AgentClient(new ApiServerProxyTransport(client, pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(), adminPort));
        };
    }

    /** The pod IP as a URL host (IPv6 in brackets). */
    public static String hostOf(Pod pod) {
        String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
        if (ip == null || ip.isBlank()) {
            throw new IllegalStateException("pod " + pod.getMetadata().getName() + " has no IP yet");
        }
        return HostPort.host(ip);
    }
}
