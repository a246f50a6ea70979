package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.operator.BenchmarkRunReconciler;
import dev.pacer.operator.OperatorSettings;
import dev.pacer.operator.ProbeSettings;
import dev.pacer.operator.access.AgentAccess;
import dev.pacer.operator.run.RunQueue;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link BenchmarkRunReconciler} alone, one reconcile at a time, on a real kube-apiserver (no kubelet, no JOSDK
 * event loop: the test calls the reconciler, writes the status it asks for as JOSDK would, and moves the clock):
 * each reconcile is one step of the protocol and patches only what changed, failing reconciles are shown and then
 * fail the run once they outlast its timeout, and a finished run lives exactly its time to live. The same reconciler
 * under JOSDK, with its informers and retries, is {@code OperatorApiServerTest}.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class BenchmarkRunReconcilerApiServerTest {
    static KubernetesClient client;
    private static final Instant T0 = Instant.parse("2026-11-26T02:00:00Z");

    @BeforeAll
    static void applyCrds() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
    }

    private static BenchmarkRunReconciler reconciler(SteppedClock clock) {
        return new BenchmarkRunReconciler(AgentAccess.POD_IP, RunPlanner.DEFAULT_CLIENT_IMAGE,
                new ProbeSettings(OperatorSettings.DEFAULT_PROBE_IMAGE, OperatorSettings.DEFAULT_PROBE_NAMESPACE), RunQueue.UNLIMITED, clock);
    }

    private static BenchmarkRun fetch(String name) {
        return client.resources(BenchmarkRun.class).inNamespace("default").withName(name).get();
    }

    private static BenchmarkRun create(BenchmarkRun run) {
        client.resources(BenchmarkRun.class).resource(run).create();
        return fetch(run.getMetadata().getName());
    }

    /** Writes the status a reconcile asked for, as JOSDK would, and returns the run as the API server now holds it. */
    private static BenchmarkRun write(String name, BenchmarkRunStatus status) {
        BenchmarkRun current = fetch(name);
        current.setStatus(status);
        client.resources(BenchmarkRun.class).resource(current).updateStatus();
        return fetch(name);
    }

    private static UpdateControl<BenchmarkRun> reconcile(BenchmarkRunReconciler reconciler, BenchmarkRun run) {
        return reconciler.reconcile(run, new ApiServerContext<>(client, run));
    }

    private static List<String> podsOf(BenchmarkRun run) {
        return client.pods().inNamespace("default").list().getItems().stream()
                .filter(p -> p.getMetadata().getOwnerReferences().stream().anyMatch(o -> o.getUid().equals(run.getMetadata().getUid())))
                .map(p -> p.getMetadata().getName()).sorted().toList();
    }

    private static Condition condition(BenchmarkRunStatus status, String type) {
        return status.conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow(() -> new AssertionError("no " + type + " condition"));
    }

    @Test
    void eachReconcileIsOneStepAndAnUnchangedRunIsNotPatched() throws Exception {
        SteppedClock clock = new SteppedClock(T0);
        BenchmarkRunReconciler reconciler = reconciler(clock);
        BenchmarkRun run = create(ApiServerFixtures.quickstart("stepped"));

        // until its server pod is asked for: a few steps, each patching the status and asking to be called again
        int steps = 0;
        while (podsOf(run).isEmpty()) {
            UpdateControl<BenchmarkRun> step = reconcile(reconciler, run);
            assertThat(step.isPatchStatus()).as("step %d changes the status", steps).isTrue();
            assertThat(step.getScheduleDelay()).as("step %d asks to be called again", steps).isPresent();
            run = write("stepped", step.getResource().orElseThrow().getStatus());
            assertThat(++steps).as("steps before the server pod is created").isLessThanOrEqualTo(3);
        }
        assertThat(run.getStatus().phase).isEqualTo(Phase.Starting);
        assertThat(run.getStatus().observedGeneration).isEqualTo(run.getMetadata().getGeneration());
        assertThat(podsOf(run)).as("the server first; no client before the server is ready").containsExactly("stepped-server");

        // the pod seen (Pending: no kubelet runs it) goes into the status; then nothing changes, and nothing is written
        UpdateControl<BenchmarkRun> seen = reconcile(reconciler, run);
        for (int more = 0; seen.isPatchStatus(); more++) {
            assertThat(more).as("reconciles writing the status with nothing new").isLessThan(2);
            run = write("stepped", seen.getResource().orElseThrow().getStatus());
            seen = reconcile(reconciler, run);
        }
        assertThat(run.getStatus().phase).isEqualTo(Phase.Starting);
        String before = Serialization.asJson(run.getStatus());
        clock.advance(Duration.ofSeconds(1));
        UpdateControl<BenchmarkRun> idle = reconcile(reconciler, run);
        assertThat(idle.isNoUpdate()).as("an unchanged status is not patched; it was " + before).isTrue();
        assertThat(idle.getScheduleDelay()).as("and the run is looked at again").isPresent();
        assertThat(podsOf(fetch("stepped"))).containsExactly("stepped-server");
    }

    /**
     * A reconcile handed a copy of the run older than the last status write (the informer behind the operator's own
     * patch, while a pod's event comes first) acts on the API server's copy: the server pod, created by the last step
     * and deleted since, is not created again; the run fails naming it.
     */
    @Test
    void aCopyOfTheRunOlderThanItsLastStatusDoesNotRedoTheLastStep() throws Exception {
        BenchmarkRunReconciler reconciler = reconciler(new SteppedClock(T0));
        BenchmarkRun run = create(ApiServerFixtures.quickstart("stale"));
        BenchmarkRun beforeThePod = run;
        while (podsOf(run).isEmpty()) {
            beforeThePod = run;
            run = write("stale", reconcile(reconciler, run).getResource().orElseThrow().getStatus());
        }
        client.pods().inNamespace("default").withName("stale-server").withGracePeriod(0).delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.pods().inNamespace("default").withName("stale-server").get() == null);

        UpdateControl<BenchmarkRun> late = reconcile(reconciler, beforeThePod);

        assertThat(podsOf(run)).as("the deleted server pod, not created again").isEmpty();
        BenchmarkRunStatus status = late.getResource().orElseThrow().getStatus();
        assertThat(status.phase).isEqualTo(Phase.Failed);
        assertThat(condition(status, RunConditions.READY).getReason()).isEqualTo("PodDeleted");
    }

    @Test
    void failingReconcilesAreShownAndFailTheRunOnceTheyOutlastItsTimeout() throws Exception {
        SteppedClock clock = new SteppedClock(T0);
        BenchmarkRunReconciler reconciler = reconciler(clock);
        BenchmarkRun run = create(ApiServerFixtures.quickstart("erring"));
        run = write("erring", reconcile(reconciler, run).getResource().orElseThrow().getStatus());
        Phase phaseBefore = run.getStatus().phase;
        Duration timeout = RunPlanner.plan(run).timeout();

        ErrorStatusUpdateControl<BenchmarkRun> first = reconciler.updateErrorStatus(run, new ApiServerContext<>(client, run),
                new KubernetesClientException("the API server is gone"));
        run = write("erring", first.getResource().orElseThrow().getStatus());
        Condition ready = condition(run.getStatus(), RunConditions.READY);
        assertThat(ready.getStatus()).isEqualTo(RunConditions.UNKNOWN);
        assertThat(ready.getReason()).isEqualTo("ReconcileError");
        assertThat(ready.getMessage()).contains("the API server is gone");
        assertThat(Instant.parse(ready.getLastTransitionTime())).isEqualTo(T0);
        assertThat(run.getStatus().phase).as("an error shorter than the timeout is retried").isEqualTo(phaseBefore);

        clock.advance(timeout.minusSeconds(1));
        run = write("erring", reconciler.updateErrorStatus(run, new ApiServerContext<>(client, run),
                new KubernetesClientException("still gone")).getResource().orElseThrow().getStatus());
        ready = condition(run.getStatus(), RunConditions.READY);
        assertThat(Instant.parse(ready.getLastTransitionTime())).as("the errors began at the first").isEqualTo(T0);
        assertThat(ready.getMessage()).contains("still gone");
        assertThat(run.getStatus().phase).isEqualTo(phaseBefore);

        clock.advance(Duration.ofSeconds(1));
        run = write("erring", reconciler.updateErrorStatus(run, new ApiServerContext<>(client, run),
                new KubernetesClientException("gone for good")).getResource().orElseThrow().getStatus());
        assertThat(run.getStatus().phase).as("errors as long as the timeout fail the run").isEqualTo(Phase.Failed);
        Condition failed = condition(run.getStatus(), RunConditions.FAILED);
        assertThat(failed.getReason()).isEqualTo("ReconcileError");
        assertThat(failed.getMessage()).contains("reconciles failed for " + timeout.toSeconds() + " s").contains("gone for good");

        // a finished run's failing reconcile (its cleanup) is retried without touching what it showed
        ErrorStatusUpdateControl<BenchmarkRun> afterTheEnd = reconciler.updateErrorStatus(run, new ApiServerContext<>(client, run),
                new KubernetesClientException("cleanup refused"));
        assertThat(afterTheEnd.getResource()).isEmpty();
        assertThat(afterTheEnd.isDefaultErrorProcessing()).isFalse();
    }

    @Test
    void aFinishedRunLivesExactlyItsTimeToLive() throws Exception {
        SteppedClock clock = new SteppedClock(T0);
        BenchmarkRunReconciler reconciler = reconciler(clock);
        BenchmarkRun spec = ApiServerFixtures.quickstart("expiring");
        spec.getSpec().placement.server.nodeSelector = Map.of("bad key!", "x");   // refused by the planner: the run finishes at once
        spec.getSpec().cleanup.ttlSecondsAfterFinished = 60L;
        BenchmarkRun run = create(spec);

        run = write("expiring", reconcile(reconciler, run).getResource().orElseThrow().getStatus());
        assertThat(run.getStatus().phase).isEqualTo(Phase.Failed);
        assertThat(run.getStatus().completionTime).isNotNull();
        assertThat(Instant.parse(run.getStatus().completionTime)).isEqualTo(T0);
        assertThat(condition(run.getStatus(), RunConditions.SPEC_VALID).getMessage()).contains("spec.placement.server.nodeSelector");
        assertThat(podsOf(run)).isEmpty();

        UpdateControl<BenchmarkRun> finished = reconcile(reconciler, run);
        assertThat(finished.isNoUpdate()).as("a finished run's status stays as it is").isTrue();
        assertThat(finished.getScheduleDelay()).as("called again when its time to live ends")
                .hasValueSatisfying(ms -> assertThat(ms).isBetween(60_000L, 61_000L));

        clock.advance(Duration.ofSeconds(59));
        UpdateControl<BenchmarkRun> early = reconcile(reconciler, run);
        assertThat(fetch("expiring")).as("kept before its time to live ends").isNotNull();
        assertThat(early.getScheduleDelay()).hasValueSatisfying(ms -> assertThat(ms).isBetween(1_000L, 2_000L));

        clock.advance(Duration.ofSeconds(1));
        UpdateControl<BenchmarkRun> due = reconcile(reconciler, run);
        assertThat(due.isNoUpdate()).isTrue();
        assertThat(fetch("expiring")).as("deleted once its time to live ended").isNull();
    }
}
