package dev.pacer.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import dev.pacer.operator.access.AgentAccess;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {

    @Test
    void defaultsWatchEveryNamespaceAndReachAgentsByPodIp() {
        OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of());
        assertThat(settings.agentAccess()).isEqualTo(AgentAccess.POD_IP);
        assertThat(settings.watchNamespaces()).isEmpty();
        assertThat(settings.metricsPort()).isEqualTo(8080);
        assertThat(settings.defaultClientImage()).isEqualTo("pacer/loadgen:0.1.0");
    }

    @Test
    void readsEverySetting() {
        OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of("PACER_AGENT_ACCESS", "apiserverproxy",
                "PACER_WATCH_NAMESPACES", " bench, perf ,", "PACER_METRICS_PORT", "9400",
                "PACER_DEFAULT_CLIENT_IMAGE", "registry.example.com/perf/loadgen:0.2.0"));
        assertThat(settings.agentAccess()).isEqualTo(AgentAccess.API_SERVER_PROXY);
        assertThat(settings.watchNamespaces()).containsExactly("bench", "perf");
        assertThat(settings.metricsPort()).isEqualTo(9400);
        assertThat(settings.defaultClientImage()).isEqualTo("registry.example.com/perf/loadgen:0.2.0");
    }

    @Test
    void badValuesNameTheVariable() {
        assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_AGENT_ACCESS", "ssh")))
                .hasMessageContaining("PACER_AGENT_ACCESS must be podIP or apiServerProxy, was 'ssh'");
        assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_METRICS_PORT", "http")))
                .hasMessageContaining("PACER_METRICS_PORT");
        assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_METRICS_PORT", "70000")))
                .hasMessageContaining("[0, 65535]");
    }

    @Test
    void leaderElectionIsOffUnlessAskedAndThenNeedsALeaseNamespace() {
        assertThat(OperatorSettings.fromEnvironment(Map.of()).leaderElection().enabled()).isFalse();
        OperatorSettings.LeaderElection election = OperatorSettings.fromEnvironment(Map.of("PACER_LEADER_ELECTION", "true",
                "POD_NAMESPACE", "pacer-system", "POD_NAME", "pacer-7d9f-abcde")).leaderElection();
        assertThat(election).isEqualTo(new OperatorSettings.LeaderElection(true, "pacer-system", "pacer-7d9f-abcde"));
        assertThat(OperatorSettings.fromEnvironment(Map.of("PACER_LEADER_ELECTION", "true", "PACER_LEASE_NAMESPACE", "ops",
                "HOSTNAME", "box")).leaderElection().identity()).isEqualTo("box-" + ProcessHandle.current().pid());
        assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_LEADER_ELECTION", "true")))
                .hasMessageContaining("PACER_LEASE_NAMESPACE");
        assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_LEADER_ELECTION", "yes")))
                .hasMessageContaining("PACER_LEADER_ELECTION must be true or false, was 'yes'");
    }
}
