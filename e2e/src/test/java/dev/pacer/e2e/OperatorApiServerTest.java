package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.Phase;
import dev.pacer.operator.BenchmarkRunReconciler;
import dev.pacer.engine.protocol.RunConditions;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's first steps against a real kube-apiserver (no kubelet: pods are created, never run): admission with
 * the CLI's rules, the server pod as PodFactory describes it, a deleted pod failing the run with its name.
 */
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class OperatorApiServerTest {
    static KubernetesClient client;
    static Operator operator;

    @BeforeAll
    static void start() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
        operator = new Operator(overrider -> overrider.withKubernetesClient(client));
        operator.register(new BenchmarkRunReconciler());
        operator.start();
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.stop();
        }
    }

    static BenchmarkRun quickstart(String name) throws Exception {
        return ApiServerFixtures.quickstart(name);
    }

    static BenchmarkRun fetch(String name) {
        return client.resources(BenchmarkRun.class).inNamespace("default").withName(name).get();
    }

    @Test
    void validRunGetsItsServerPodAndStarts() throws Exception {
        client.resources(BenchmarkRun.class).resource(quickstart("starts")).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BenchmarkRun run = fetch("starts");
            assertThat(run.getStatus()).isNotNull();
            assertThat(run.getStatus().phase).isEqualTo(Phase.Starting);
        });
        BenchmarkRun run = fetch("starts");
        assertThat(run.getStatus().load).isEqualTo("2x500");
        assertThat(run.getStatus().observedGeneration).isEqualTo(run.getMetadata().getGeneration());
        assertThat(run.getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(RunConditions.SPEC_VALID);
            assertThat(c.getStatus()).isEqualTo("True");
        });
        Pod server = client.pods().inNamespace("default").withName("starts-server").get();
        assertThat(server).isNotNull();
        assertThat(server.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(run.getMetadata().getUid()));
        assertThat(server.getSpec().getContainers().getFirst().getResources().getLimits().get("cpu").toString()).isEqualTo("1");
        assertThat(server.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        // what the API server made of it: the QoS class it computed, and the restricted profile as stored
        assertThat(server.getStatus().getQosClass()).isEqualTo("Guaranteed");
        assertThat(server.getSpec().getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        var container = server.getSpec().getContainers().getFirst().getSecurityContext();
        assertThat(container.getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getAllowPrivilegeEscalation()).isFalse();
        assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(server.getSpec().getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                .singleElement().satisfies(term -> {
                    assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                    assertThat(term.getLabelSelector().getMatchLabels()).containsEntry("pacer.dev/role", "client");
                });
    }

    @Test
    void specTheSchemaCannotJudgeIsRefusedNamingTheField() throws Exception {
        BenchmarkRun run = quickstart("refused");
        run.getSpec().duration = "2500ms";   // not a multiple of the 1 s sample period
        client.resources(BenchmarkRun.class).resource(run).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(fetch("refused").getStatus()).isNotNull();
            assertThat(fetch("refused").getStatus().phase).isEqualTo(Phase.Failed);
        });
        assertThat(fetch("refused").getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(RunConditions.SPEC_VALID);
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("InvalidSpec");
            assertThat(c.getMessage()).contains("spec.duration").contains("multiple of spec.samplePeriod");
        });
        assertThat(client.pods().inNamespace("default").withName("refused-server").get()).isNull();
    }

    @Test
    void aFinishedRunIsDeletedAfterItsTtl() throws Exception {
        BenchmarkRun run = quickstart("expires");
        run.getSpec().duration = "2500ms";   // refused by the operator: the run finishes (Failed) at once
        run.getSpec().cleanup.ttlSecondsAfterFinished = 2L;
        client.resources(BenchmarkRun.class).resource(run).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BenchmarkRun seen = fetch("expires");
            assertThat(seen).isNotNull();
            assertThat(seen.getStatus()).isNotNull();
            assertThat(seen.getStatus().phase).isEqualTo(Phase.Failed);
            assertThat(seen.getStatus().completionTime).isNotNull();
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> fetch("expires") == null);
    }

    @Test
    void deletedServerPodFailsTheRunNamingIt() throws Exception {
        client.resources(BenchmarkRun.class).resource(quickstart("loses-pod")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace("default").withName("loses-pod-server").get() != null);
        client.pods().inNamespace("default").withName("loses-pod-server").withGracePeriod(0).delete();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BenchmarkRun run = fetch("loses-pod");
            assertThat(run.getStatus()).isNotNull();
            assertThat(run.getStatus().phase).isEqualTo(Phase.Failed);
            assertThat(run.getStatus().conditions).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo(RunConditions.READY);
                assertThat(c.getReason()).isEqualTo("PodDeleted");
                assertThat(c.getMessage()).contains("loses-pod-server");
            });
        });
    }
}
