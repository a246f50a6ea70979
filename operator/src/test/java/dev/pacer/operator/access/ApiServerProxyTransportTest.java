package dev.pacer.operator.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Test;

class ApiServerProxyTransportTest {

    @Test
    void buildsThePodProxyPathOfTheContract() {
        try (KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder().withMasterUrl("https://10.0.0.1:6443/").build()).build()) {
            ApiServerProxyTransport transport = new ApiServerProxyTransport(client, "bench", "run-server", 9090);
            assertThat(transport.proxyUrl("/pacer/v1/histograms?series=sendLag"))
                    .isEqualTo("https://10.0.0.1:6443/api/v1/namespaces/bench/pods/run-server:9090/proxy/pacer/v1/histograms?series=sendLag");
            assertThat(transport.describe()).contains("bench/run-server:9090");
        }
    }

    @Test
    void podIpHostsAreUrlReady() {
        assertThat(AgentAccess.hostOf(new PodBuilder().withNewMetadata().withName("p").endMetadata()
                .withNewStatus().withPodIP("10.245.0.7").endStatus().build())).isEqualTo("10.245.0.7");
        assertThat(AgentAccess.hostOf(new PodBuilder().withNewMetadata().withName("p").endMetadata()
                .withNewStatus().withPodIP("fd00::7").endStatus().build())).isEqualTo("[fd00::7]");
        assertThatThrownBy(() -> AgentAccess.hostOf(new PodBuilder().withNewMetadata().withName("p").endMetadata().build()))
                .hasMessageContaining("pod p has no IP yet");
    }

    @Test
    void theApiServersOwnFailureToReachThePodIsNoAnswerWithItsMessage() {
        String status = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\"error trying to reach service: dial tcp 10.245.0.5:9090: connect: connection refused\","
                + "\"reason\":\"ServiceUnavailable\",\"code\":503}";
        assertThat(ApiServerProxyTransport.proxyCouldNotReach(503, status)).isTrue();
        assertThat(ApiServerProxyTransport.statusMessage(status)).isEqualTo("error trying to reach service: dial tcp 10.245.0.5:9090: connect: connection refused");
        assertThat(ApiServerProxyTransport.proxyCouldNotReach(503, "busy")).as("the agent's own answer").isFalse();
        assertThat(ApiServerProxyTransport.proxyCouldNotReach(404, status)).isFalse();
    }
}
