package dev.pacer.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class PodProblemTest {

    static PodBuilder pod() {
        return new PodBuilder().withNewMetadata().withName("r-server").endMetadata();
    }

    @Test
    void aRunningReadyPodHasNoProblem() {
        Pod pod = pod().withNewStatus().withPhase("Running")
                .addNewCondition().withType("Ready").withStatus("True").endCondition()
                .addNewContainerStatus().withName("server").withNewState().withNewRunning().endRunning().endState().endContainerStatus()
                .endStatus().build();
        assertThat(PodProblem.of(pod)).isEmpty();
        assertThat(PodProblem.isReady(pod)).isTrue();
    }

    @Test
    void anImagePullBackOffIsReportedButNotFatal() {
        Pod pod = pod().withNewStatus().withPhase("Pending")
                .addNewContainerStatus().withName("server").withNewState().withNewWaiting().withReason("ImagePullBackOff")
                .withMessage("Back-off pulling image \"pacer/nope:1\"").endWaiting().endState().endContainerStatus()
                .endStatus().build();
        assertThat(PodProblem.of(pod)).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("ImagePullBackOff");
            assertThat(p.message()).contains("r-server", "pacer/nope:1");
            assertThat(p.fatal()).isFalse();
        });
        assertThat(PodProblem.isReady(pod)).isFalse();
    }

    @Test
    void containerCreatingIsNoProblem() {
        Pod pod = pod().withNewStatus().withPhase("Pending")
                .addNewContainerStatus().withName("server").withNewState().withNewWaiting().withReason("ContainerCreating").endWaiting().endState().endContainerStatus()
                .endStatus().build();
        assertThat(PodProblem.of(pod)).isEmpty();
    }

    @Test
    void anUnschedulablePodSaysWhy() {
        Pod pod = pod().withNewStatus().withPhase("Pending")
                .addNewCondition().withType("PodScheduled").withStatus("False").withReason("Unschedulable")
                .withMessage("0/1 nodes are available: 1 Insufficient cpu.").endCondition()
                .endStatus().build();
        assertThat(PodProblem.of(pod)).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("Unschedulable");
            assertThat(p.message()).contains("r-server cannot be scheduled", "Insufficient cpu");
            assertThat(p.fatal()).isFalse();
        });
    }

    @Test
    void anEvictedPodIsFatal() {
        Pod pod = pod().withNewStatus().withPhase("Failed").withReason("Evicted").withMessage("The node was low on resource: memory.").endStatus().build();
        assertThat(PodProblem.of(pod)).hasValueSatisfying(p -> {
            assertThat(p.reason()).isEqualTo("PodEvicted");
            assertThat(p.message()).contains("r-server failed", "low on resource");
            assertThat(p.fatal()).isTrue();
        });
    }

    @Test
    void aContainerThatExitedIsFatalWithItsExitCode() {
        Pod pod = pod().withNewStatus().withPhase("Running")
                .addNewContainerStatus().withName("server").withNewState().withNewTerminated().withExitCode(137).withReason("OOMKilled")
                .endTerminated().endState().endContainerStatus()
                .endStatus().build();
        assertThat(PodProblem.of(pod)).hasValueSatisfying(p -> {
            assertThat(p.fatal()).isTrue();
            assertThat(p.message()).contains("exit code 137 (OOMKilled)");
        });
    }

    @Test
    void aPodBeingDeletedIsFatal() {
        Pod pod = pod().editMetadata().withDeletionTimestamp("2026-11-22T10:00:00Z").endMetadata().build();
        assertThat(PodProblem.of(pod)).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("PodDeleted"));
    }
}
