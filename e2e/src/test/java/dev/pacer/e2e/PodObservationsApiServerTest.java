package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.contract.AgentContract;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.AgentAnswer;
import dev.pacer.engine.protocol.RoleObservation;
import dev.pacer.engine.protocol.RunProtocol;
import dev.pacer.operator.ProbeSettings;
import dev.pacer.operator.access.AgentAccess;
import dev.pacer.operator.pods.PodFactory;
import dev.pacer.operator.run.PodObservations;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator's observations through the engine's contract, on a real kube-apiserver (no kubelet: the pods' status
 * is written as a kubelet writes it): a role absent, starting, ready at its pod's address, failed naming why; the
 * server's answerer as its measure says; the mirror of {@code LocalPlatformTest}.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class PodObservationsApiServerTest {
    static KubernetesClient client;

    @BeforeAll
    static void applyCrds() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
    }

    private static PodObservations observe(BenchmarkRun run, RunPlan plan) {
        return new PodObservations(run, plan, client, Set.of(), AgentAccess.POD_IP, new ProbeSettings("pacer/probe:0.1.0", "default"),
                List.of(run), 1);
    }

    private static void writeStatus(Pod pod, PodStatusBuilder status) {
        pod.setStatus(status.build());
        client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
    }

    @Test
    void aRolesPodIsSeenAbsentStartingReadyAndFailed() throws Exception {
        BenchmarkRun run = ApiServerFixtures.quickstart("observed");
        run.getMetadata().setUid("5e77c0de-0000-4000-8000-000000000003");
        RunPlan plan = RunPlanner.plan(run);
        assertThat(observe(run, plan).server().presence()).isEqualTo(RoleObservation.Presence.ABSENT);
        assertThat(observe(run, plan).client("client-0").presence()).isEqualTo(RoleObservation.Presence.ABSENT);

        Pod server = client.pods().inNamespace("default").resource(PodFactory.serverPod(run, plan)).create();
        RoleObservation starting = observe(run, plan).server();
        assertThat(starting.presence()).isEqualTo(RoleObservation.Presence.STARTING);
        assertThat(starting.askedExclusiveCpus()).as("the quickstart pins its server on 1 CPU").isEqualTo(1L);

        writeStatus(server, new PodStatusBuilder().withPhase("Running").withPodIP("10.244.0.7")
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build()));
        RoleObservation ready = observe(run, plan).server();
        assertThat(ready.presence()).isEqualTo(RoleObservation.Presence.READY);
        assertThat(ready.address()).isEqualTo("10.244.0.7");

        Pod client0 = client.pods().inNamespace("default").resource(PodFactory.clientPod(run, plan, plan.client("client-0"))).create();
        writeStatus(client0, new PodStatusBuilder().withPhase("Failed").withReason("Evicted").withMessage("the node ran out of memory"));
        RoleObservation failed = observe(run, plan).client("client-0");
        assertThat(failed.presence()).isEqualTo(RoleObservation.Presence.FAILED);
        assertThat(failed.reason()).isEqualTo("PodEvicted");
        assertThat(failed.message()).contains(client0.getMetadata().getName());

        AgentAnswer<?> unmeasured = observe(run, planWithMeasure(run, "none")).info(AgentContract.ROLE_SERVER);
        assertThat(unmeasured.unreachable()).as("measure none: nobody answers for the server").isTrue();
        assertThat(unmeasured.error()).contains("not measured");
        AgentAnswer<?> probeGone = observe(run, planWithMeasure(run, "probe")).info(AgentContract.ROLE_SERVER);
        assertThat(probeGone.error()).as("measure probe: the probe answers for the server, and its pod is not there")
                .contains("the probe pod").contains("is gone");
    }

    private static RunPlan planWithMeasure(BenchmarkRun run, String measure) {
        String before = run.getSpec().server.measure;
        run.getSpec().server.measure = measure;
        try {
            return RunPlanner.plan(run);
        } finally {
            run.getSpec().server.measure = before;
        }
    }

    /**
     * A node written as the node controller writes it: Ready, then Unknown for less than RunProtocol.NODE_LOST_AFTER
     * (an API server outage the kubelet reports past), its pod still Ready and then marked not ready, then for longer
     * (its kubelet gone): only the last loses the role, naming the node and the run's pods there. The nodes listed are
     * the placement's facts.
     */
    @Test
    void aRoleOnANodeNotReadyForLongerThanTheConfirmationIsLostNamingTheNode() throws Exception {
        BenchmarkRun run = ApiServerFixtures.quickstart("on-a-node");
        run.getMetadata().setUid("5e77c0de-0000-4000-8000-000000000004");
        RunPlan plan = RunPlanner.plan(run);
        Node node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("bench-a")
                .addToLabels("pacer.dev/pool", "server").endMetadata().build()).create();
        Pod server = PodFactory.serverPod(run, plan);
        server.getSpec().setNodeName("bench-a");
        server = client.pods().inNamespace("default").resource(server).create();
        writeStatus(server, new PodStatusBuilder().withPhase("Running").withPodIP("10.244.0.8")
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build()));

        nodeReady(node, "True", Instant.now().minusSeconds(300));
        assertThat(observe(run, plan).server().presence()).isEqualTo(RoleObservation.Presence.READY);
        assertThat(observe(run, plan).nodes()).hasValueSatisfying(nodes -> assertThat(nodes).singleElement()
                .satisfies(n -> assertThat(n.labels()).containsEntry("pacer.dev/pool", "server")));

        nodeReady(node, "Unknown", Instant.now().minusSeconds(2));
        assertThat(observe(run, plan).server().presence()).as("not Ready for 2 s: perhaps an API server outage")
                .isEqualTo(RoleObservation.Presence.READY);

        // the node controller marks the pods of a node Unknown not ready; still within the confirmation: not lost
        server = client.pods().inNamespace("default").withName(server.getMetadata().getName()).get();
        writeStatus(server, new PodStatusBuilder().withPhase("Running").withPodIP("10.244.0.8")
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("False").build()));
        assertThat(observe(run, plan).server().presence()).as("not Ready for 2 s, its pod marked not ready")
                .isEqualTo(RoleObservation.Presence.STARTING);

        nodeReady(node, "Unknown", Instant.now().minus(RunProtocol.NODE_LOST_AFTER).minusSeconds(5));
        RoleObservation lost = observe(run, plan).server();
        assertThat(lost.presence()).isEqualTo(RoleObservation.Presence.FAILED);
        assertThat(lost.reason()).isEqualTo("NodeLost");
        assertThat(lost.message()).contains("node bench-a is lost", "Ready Unknown", "Kubelet stopped posting node status");
    }

    private static void nodeReady(Node node, String status, Instant since) {
        Node current = client.nodes().withName(node.getMetadata().getName()).get();
        current.setStatus(new NodeStatusBuilder().addNewCondition().withType("Ready").withStatus(status)
                .withReason("True".equals(status) ? "KubeletReady" : "NodeStatusUnknown")
                .withMessage("True".equals(status) ? "kubelet is posting ready status" : "Kubelet stopped posting node status.")
                .withLastTransitionTime(since.toString()).withLastHeartbeatTime(since.toString()).endCondition().build());
        client.nodes().resource(current).updateStatus();
    }
}
