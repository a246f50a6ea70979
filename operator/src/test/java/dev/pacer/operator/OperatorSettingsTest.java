package dev.pacer.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
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
        assertThat(settings.probe().imagePullSecrets()).isEmpty();
        assertThat(OperatorSettings.fromEnvironment(Map.of("PACER_PROBE_IMAGE_PULL_SECRETS", " pacer-registry,, mirror ")).probe()
                .imagePullSecrets()).containsExactly("pacer-registry", "mirror");
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

    @Test
    void artifactsAreKeptOnlyWhereADirectoryIsNamedForTheRetentionAsked() {
        assertThat(OperatorSettings.fromEnvironment(Map.of()).artifacts().enabled()).isFalse();
        OperatorSettings.Artifacts kept = OperatorSettings.fromEnvironment(Map.of("PACER_ARTIFACTS_DIR", "/var/lib/pacer/artifacts",
                "PACER_ARTIFACTS_SERVICE", "pacer-system/pacer-metrics:8080")).artifacts();
        assertThat(kept.directory()).hasToString("/var/lib/pacer/artifacts");
        assertThat(kept.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(kept.service()).isEqualTo("pacer-system/pacer-metrics:8080");
        assertThat(OperatorSettings.retention("720h")).isEqualTo(Duration.ofDays(30));
        assertThat(OperatorSettings.retention("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(OperatorSettings.retention("P2D")).isEqualTo(Duration.ofDays(2));
        assertThat(OperatorSettings.retention("PT90M")).isEqualTo(Duration.ofMinutes(90));
        assertThat(OperatorSettings.retention("1h30m")).as("as specs write durations").isEqualTo(Duration.ofMinutes(90));
        assertThat(OperatorSettings.fromEnvironment(Map.of("PACER_ARTIFACTS_DIR", "/a", "PACER_ARTIFACTS_RETENTION", "0"))
                .artifacts().retention()).isNull();
        for (String bad : new String[] {"30", "a week", "P1M", "-PT1H"}) {
            assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_ARTIFACTS_DIR", "/a", "PACER_ARTIFACTS_RETENTION", bad)))
                    .hasMessageContaining("PACER_ARTIFACTS_RETENTION must be a duration such as 720h").hasMessageContaining(bad);
        }
        assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_ARTIFACTS_DIR", "/a", "PACER_ARTIFACTS_SERVICE", "http://x")))
                .hasMessageContaining("PACER_ARTIFACTS_SERVICE must be NAMESPACE/NAME:PORT");
    }

    @Test
    void theInstallsRegistryResolvesPacersOwnImagesNamedWithoutOne() {
        assertThat(OperatorSettings.fromEnvironment(Map.of()).ownImages().resolve("pacer/server-jetty12:0.1.0"))
                .isEqualTo("pacer/server-jetty12:0.1.0");
        assertThat(OperatorSettings.fromEnvironment(Map.of("PACER_IMAGE_REGISTRY", "registry.example.com/perf")).ownImages()
                .resolve("pacer/server-jetty12:0.1.0")).isEqualTo("registry.example.com/perf/server-jetty12:0.1.0");
    }

    @Test
    void grafanaAddressIsOptionalAndMustBeAnHttpAddress() {
        assertThat(OperatorSettings.fromEnvironment(Map.of()).grafana()).isNull();
        assertThat(OperatorSettings.fromEnvironment(Map.of("PACER_GRAFANA_URL", "https://grafana.example.com/sub/")).grafana())
                .hasToString("https://grafana.example.com/sub");
        for (String bad : new String[] {"grafana:3000", "ftp://grafana", "http://grafana/?orgId=1", "http://"}) {
            assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("PACER_GRAFANA_URL", bad)))
                    .hasMessageContaining("PACER_GRAFANA_URL must be Grafana's address").hasMessageContaining(bad);
        }
    }
}
