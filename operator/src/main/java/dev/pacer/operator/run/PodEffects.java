package dev.pacer.operator.run;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.protocol.Action;
import dev.pacer.engine.protocol.AgentAnswer;
import dev.pacer.engine.protocol.Notice;
import dev.pacer.engine.protocol.Outcomes;
import dev.pacer.engine.protocol.RunDriver;
import dev.pacer.operator.ProbeSettings;
import dev.pacer.operator.RunEvents;
import dev.pacer.operator.artifacts.ArtifactStore;
import dev.pacer.operator.history.HistoryRecorder;
import dev.pacer.operator.pods.PodFactory;
import dev.pacer.operator.pods.ServiceFactory;
import dev.pacer.operator.pods.TlsFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol's actions on Kubernetes: the headless Service and pods created if absent (a 409 means a previous
 * reconcile did it), the run posted to and collected from the agents, pods and the run deleted, notices as events.
 */
public final class PodEffects implements RunDriver.Effects {
    private static final Logger LOG = LoggerFactory.getLogger(PodEffects.class);

    private final BenchmarkRun run;
    private final RunPlan plan;
    private final KubernetesClient client;
    private final PodObservations seen;
    private final RunEvents events;
    private final ProbeSettings probe;
    private final ArtifactStore artifacts;
    private final HistoryRecorder history;
    private boolean runDeleted;

    /**
     * @param artifacts where finished runs' results are kept, {@code null}: nowhere
     * @param history   where finished runs are recorded for the history, {@code null}: nowhere
     */
    public PodEffects(BenchmarkRun run, RunPlan plan, KubernetesClient client, PodObservations seen, RunEvents events,
                      ProbeSettings probe, ArtifactStore artifacts, HistoryRecorder history) {
        this.probe = probe;
        this.artifacts = artifacts;
        this.history = history;
        this.run = run;
        this.plan = plan;
        this.client = client;
        this.seen = seen;
        this.events = events;
    }

    /** Whether the run itself was deleted in this reconcile (its status is then not written). */
    public boolean runDeleted() {
        return runDeleted;
    }

    @Override
    public Optional<String> createServer() {
        if (plan.tls() != null && plan.tls().generated()) {   // the run's own certificate first: the server pod mounts it
            Optional<String> refused = createIfAbsent(TlsFactory.generatedSecret(run, plan, java.time.Instant.now()));
            if (refused.isPresent()) {
                return refused;
            }
        }
        return createIfAbsent(ServiceFactory.serverService(run, plan)).or(() -> createIfAbsent(PodFactory.serverPod(run, plan)));
    }

    @Override
    public Optional<String> createProbe(Action.CreateProbe create) {
        return createIfAbsent(PodFactory.probePod(run, plan, probe, create.serverNode(), create.serverAddress()));
    }

    @Override
    public Optional<String> createClients(List<String> names) {
        for (String name : names) {
            Optional<String> refused = createIfAbsent(PodFactory.clientPod(run, plan, plan.client(name)));
            if (refused.isPresent()) {
                return refused;
            }
        }
        return Optional.empty();
    }

    @Override
    public AgentAnswer<LoadRunStatus> postRun(Action.PostRun post) {
        return AgentAnswer.ask(() -> seen.agent(post.client()).postRun(post.request()));
    }

    @Override
    public AgentAnswer<LoadRunStatus> postStart(Action.PostStart start) {
        return AgentAnswer.ask(() -> seen.agent(start.client()).postStart(start.startAtEpochMs()));
    }

    @Override
    public AgentAnswer<LoadRunStatus> moveWindow(Action.MoveWindow move) {
        return AgentAnswer.ask(() -> seen.agent(move.client()).postWindow(move.windowStartEpochMs()));
    }

    @Override
    public Outcomes.Collection collect(Action.Collect collect) {
        try {
            return Outcomes.Collection.of(seen.collect(collect.windowStartEpochMs(), collect.windowEndEpochMs()).placedAt(seen.placed()));
        } catch (IOException e) {
            return Outcomes.Collection.failed(e);
        } catch (IllegalStateException e) {
            // a role's pod not there to ask: the next step finds it gone and fails the run naming it
            return new Outcomes.Collection(null, e.getMessage(), true);
        }
    }

    @Override
    public Optional<BenchmarkRunStatus.Artifacts> publish(Action.Publish publish) {
        LOG.info("run {}/{}: {} ({} histogram files collected)", run.getMetadata().getNamespace(), run.getMetadata().getName(),
                publish.document().result().verdict, publish.files().size());
        if (history != null) {
            HistoryRecorder.Recording recording = history.record(run, publish.document(), publish.files());
            if (recording.problem() != null) {
                events.warning(run, "HistoryNotRecorded", recording.problem() + "; the result in the status stands");
            }
            recording.alerting().forEach(change -> events.warning(run, "Regressed", HistoryRecorder.sentence(recording.series(), change)));
        }
        if (artifacts == null) {
            return Optional.empty();
        }
        var kept = artifacts.keep(run, publish.document(), publish.files());
        if (kept.error != null) {
            events.warning(run, "ArtifactsNotKept", kept.error + "; the result in the status stands");
        }
        return Optional.of(kept);
    }

    @Override
    public void cleanUp(Action.CleanUp cleanUp) {
        String namespace = run.getMetadata().getNamespace();
        client.pods().inNamespace(namespace).withLabel(PodFactory.LABEL_RUN, run.getMetadata().getName()).delete();
        client.services().inNamespace(namespace).withName(ServiceFactory.serviceName(run)).delete();
        if (plan.server().measure().probe()) {
            client.pods().inNamespace(probe.namespace()).withName(PodFactory.probePodName(run)).delete();
        }
    }

    /**
     * A deadline already passed ({@code activeDeadlineSeconds} may be lowered on a running pod): the kubelet stops the
     * containers, the pod stays {@code Failed} with reason DeadlineExceeded and its logs, and neither the scheduler nor
     * the static CPU manager counts its CPUs any more.
     */
    @Override
    public void stopRoles(Action.StopRoles stop) {
        String namespace = run.getMetadata().getNamespace();
        String deadline = "{\"spec\":{\"activeDeadlineSeconds\":1}}";
        var pods = new ArrayList<>(client.pods().inNamespace(namespace).withLabel(PodFactory.LABEL_RUN, run.getMetadata().getName())
                .list().getItems());
        if (plan.server().measure().probe()) {
            Pod probePod = client.pods().inNamespace(probe.namespace()).withName(PodFactory.probePodName(run)).get();
            if (probePod != null) {
                pods.add(probePod);
            }
        }
        for (Pod pod : pods) {
            if (pod.getMetadata().getDeletionTimestamp() == null && !isFinished(pod)) {
                client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                        .patch(PatchContext.of(PatchType.JSON_MERGE), deadline);
            }
        }
        LOG.info("run {}/{}: {} pod(s) stopped, kept for their logs ({})", namespace, run.getMetadata().getName(), pods.size(), stop.why());
    }

    private static boolean isFinished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    @Override
    public void expireRun(Action.ExpireRun expire) {
        LOG.info("deleting {}/{}: {}", run.getMetadata().getNamespace(), run.getMetadata().getName(), expire.why());
        client.resource(run).delete();
        runDeleted = true;
    }

    @Override
    public void notify(Notice notice) {
        if (notice.warning()) {
            events.warning(run, notice.reason(), notice.message());
            LOG.info("run {}/{}: {}: {}", run.getMetadata().getNamespace(), run.getMetadata().getName(), notice.reason(), notice.message());
        } else {
            events.normal(run, notice.reason(), notice.message());
        }
    }

    /**
     * A refusal that goes away by itself: too many requests, or a namespace created a moment ago whose default service
     * account the controller manager has not made yet. Any other 4xx is the pod's own fault and fails the run.
     */
    static boolean passing(KubernetesClientException e) {
        return e.getCode() == 429 || (e.getCode() == 403 && message(e).contains("error looking up service account"));
    }

    /** The API server's own words, without the client's wrapping. */
    private static String message(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : String.valueOf(e.getMessage());
    }

    /**
     * Creates the object unless a previous reconcile did (409). The API server refusing it (4xx: an invalid pod, a
     * quota, a policy) is final: the answer says why, and the run fails with it instead of retrying forever. Other
     * errors (5xx, no connection) are thrown: the reconcile is retried.
     */
    private Optional<String> createIfAbsent(HasMetadata resource) {
        try {
            client.resource(resource).create();
            return Optional.empty();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                return Optional.empty();
            }
            if (passing(e)) {
                throw e;   // the reconcile is retried with backoff; the run's spec.timeout bounds the retries
            }
            if (e.getCode() >= 400 && e.getCode() < 500) {
                return Optional.of("the API server refused " + resource.getKind() + " " + resource.getMetadata().getName()
                        + " (" + e.getCode() + "): " + message(e));
            }
            throw e;
        }
    }
}
