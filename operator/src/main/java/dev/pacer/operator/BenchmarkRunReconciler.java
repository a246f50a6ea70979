package dev.pacer.operator;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.engine.plan.OwnImages;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.Action;
import dev.pacer.engine.protocol.Decision;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.protocol.RunDriver;
import dev.pacer.engine.protocol.RunProtocol;
import dev.pacer.operator.access.AgentAccess;
import dev.pacer.operator.artifacts.ArtifactStore;
import dev.pacer.operator.history.HistoryRecorder;
import dev.pacer.operator.metrics.RunDashboardLink;
import dev.pacer.operator.pods.PodFactory;
import dev.pacer.operator.pods.TlsFactory;
import dev.pacer.operator.run.PodEffects;
import dev.pacer.operator.run.PodObservations;
import dev.pacer.operator.run.RunQueue;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapts the engine's run protocol ({@link RunProtocol}, docs/design.md "The run protocol") to Kubernetes: each
 * reconcile plans the run, observes its pods and agents ({@link PodObservations}), lets {@link RunDriver} step the
 * protocol and carry out its actions on the API ({@link PodEffects}), then writes the status — the protocol's whole
 * state, so an operator restarted at any point resumes the run — and reschedules as the protocol asks. Nothing waits
 * in the reconcile thread.
 * <p>The Service and pods are created by the protocol's actions rather than as JOSDK dependent resources: whether
 * they should exist depends on the run's phase (clients only once the server is ready, none re-created once the load
 * started, deleted by the cleanup policy), which the protocol owns.
 */
@ControllerConfiguration(name = BenchmarkRunReconciler.NAME)
@GradualRetry(maxAttempts = -1, maxInterval = BenchmarkRunReconciler.MAX_RETRY_INTERVAL_MS)
public class BenchmarkRunReconciler implements Reconciler<BenchmarkRun> {
    public static final String NAME = "benchmarkrun";
    /**
     * A failed reconcile is retried without end, at most this long apart (JOSDK stops after 5 tries by default, which
     * left a run whose pods the API server refused for half a minute waiting for an event that might never come);
     * {@link #updateErrorStatus} fails the run once its reconciles have failed for longer than its {@code spec.timeout}.
     */
    static final long MAX_RETRY_INTERVAL_MS = 20_000;
    /** The bound on failing reconciles of a run whose spec cannot be planned (it has no timeout of its own). */
    static final Duration DEFAULT_ERROR_LIMIT = Duration.ofMinutes(10);
    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkRunReconciler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AgentAccess access;
    private final String defaultClientImage;
    private final ProbeSettings probe;
    private final int maxActiveRuns;
    private final Clock clock;
    private volatile IndexedResourceCache<BenchmarkRun> runs;
    private volatile ArtifactStore artifacts;
    private volatile HistoryRecorder history;
    private volatile URI grafana;
    private volatile OwnImages ownImages = OwnImages.AS_WRITTEN;

    public BenchmarkRunReconciler() {
        this(AgentAccess.POD_IP);
    }

    /** No limit of runs at once: for tests of single runs. */
    public BenchmarkRunReconciler(AgentAccess access) {
        this(access, RunPlanner.DEFAULT_CLIENT_IMAGE, new ProbeSettings(OperatorSettings.DEFAULT_PROBE_IMAGE,
                OperatorSettings.DEFAULT_PROBE_NAMESPACE), RunQueue.UNLIMITED, Clock.systemUTC());
    }

    /**
     * @param defaultClientImage the client image of a run that names none
     * @param probe              the kernel probe's image and namespace
     * @param maxActiveRuns      runs at once, over every namespace watched ({@link RunQueue})
     */
    public BenchmarkRunReconciler(AgentAccess access, String defaultClientImage, ProbeSettings probe, int maxActiveRuns, Clock clock) {
        this.maxActiveRuns = maxActiveRuns;
        this.access = access;
        this.defaultClientImage = defaultClientImage;
        this.probe = probe;
        this.clock = clock;
    }

    /** Keeps every finished run's results directory in this store (docs/operator.md, "Artifacts"). */
    public BenchmarkRunReconciler keepingArtifactsIn(ArtifactStore store) {
        this.artifacts = store;
        return this;
    }

    /** Records finished runs in the history's database (docs/history.md). */
    public BenchmarkRunReconciler recordingHistoryWith(HistoryRecorder recorder) {
        this.history = recorder;
        return this;
    }

    /** Runs naming pacer's own images without a registry pull them from the registry the operator was installed from. */
    public BenchmarkRunReconciler resolvingOwnImages(OwnImages images) {
        this.ownImages = images;
        return this;
    }

    /** Links each run's status to its run dashboard in this Grafana, once its window is known. */
    public BenchmarkRunReconciler linkingDashboardsAt(URI grafana) {
        this.grafana = grafana;
        return this;
    }

    /** The runs in the operator's cache (for the metrics); empty until the first reconcile. */
    public Collection<BenchmarkRun> heldRuns() {
        IndexedResourceCache<BenchmarkRun> cache = runs;
        return cache == null ? List.of() : cache.list().toList();
    }

    @Override
    public List<EventSource<?, BenchmarkRun>> prepareEventSources(EventSourceContext<BenchmarkRun> context) {
        // the run's pods, found by their owner reference: a pod changing (scheduled, pulled, ready, failed, deleted)
        // reconciles its run at once instead of at the next poll
        var pods = InformerEventSourceConfiguration.from(Pod.class, BenchmarkRun.class)
                .withLabelSelector("app.kubernetes.io/managed-by=" + PodFactory.MANAGED_BY)
                .withItemStore(CachePruning.withoutManagedFields())
                .build();
        return List.of(new InformerEventSource<>(pods, context));
    }

    @Override
    public UpdateControl<BenchmarkRun> reconcile(BenchmarkRun cached, Context<BenchmarkRun> context) {
        runs = context.getPrimaryCache();
        // The status is the protocol's memory, and the informer's copy may predate the last reconcile's write of it
        // (JOSDK does not cache a patched status): a pod's event arriving first would have the run redo what it
        // already did, such as creating a pod deleted since. The API server's copy is current.
        BenchmarkRun run = context.getClient().resources(BenchmarkRun.class).inNamespace(cached.getMetadata().getNamespace())
                .withName(cached.getMetadata().getName()).get();
        if (run == null) {
            return UpdateControl.noUpdate();   // deleted meanwhile
        }
        // a copy: when an action throws (a refusal that passes, the API server gone), the error status must be the run's
        // as it was, not the decision's half done (a phase whose pods were never created)
        String before = json(run.getStatus() == null ? new BenchmarkRunStatus() : run.getStatus());
        BenchmarkRunStatus status = copyOf(before);
        RunEvents events = new RunEvents(context.getClient());
        Decision decision;
        try {
            RunPlan plan = TlsFactory.clientTrust(run, RunPlanner.plan(run, defaultClientImage, ownImages));
            PodObservations seen = new PodObservations(run, plan, context.getClient(), context.getSecondaryResources(Pod.class), access, probe,
                    context.getPrimaryCache().list().toList(), maxActiveRuns);
            PodEffects effects = new PodEffects(run, plan, context.getClient(), seen, events, probe, artifacts, history);
            decision = RunDriver.drive(plan, status, seen, effects, clock);
            if (effects.runDeleted()) {
                return UpdateControl.noUpdate();
            }
        } catch (RunPlanner.InvalidPlanException e) {
            if (status.phase != null && status.phase.isFinal()) {
                Long ttl = run.getSpec() == null || run.getSpec().cleanup == null ? null : run.getSpec().cleanup.ttlSecondsAfterFinished;
                decision = RunProtocol.finishedWithoutPlan(status, ttl == null || ttl < 0 ? null : Duration.ofSeconds(ttl), clock.instant());
                if (decision.actions().stream().anyMatch(a -> a instanceof Action.ExpireRun)) {
                    LOG.info("deleting {}/{}: its time to live passed", run.getMetadata().getNamespace(), run.getMetadata().getName());
                    context.getClient().resource(run).delete();
                    return UpdateControl.noUpdate();
                }
            } else {
                decision = RunProtocol.rejected(status, e.problems(), clock.instant());
                decision.notices().forEach(n -> events.warning(run, n.reason(), n.message()));
            }
        }
        BenchmarkRunStatus after = decision.status();
        if (grafana != null && after.startAtEpochMs != null && after.window != null && after.window.endEpochMs != null) {
            after.dashboard = RunDashboardLink.of(grafana, run.getMetadata().getNamespace(), run.getMetadata().getName(),
                    after.startAtEpochMs, after.window.endEpochMs);
        }
        Long generation = run.getMetadata().getGeneration();
        decision.status().observedGeneration = generation;
        decision.status().conditions.forEach(c -> c.setObservedGeneration(generation));
        UpdateControl<BenchmarkRun> control = Objects.equals(before, json(decision.status()))
                ? UpdateControl.noUpdate() : UpdateControl.patchStatus(forStatus(run, decision.status()));
        return decision.recheckAfter() == null ? control : control.rescheduleAfter(decision.recheckAfter());
    }

    /**
     * A reconcile that threw (a refusal that passes, the API server gone) is retried; the run shows the error in its
     * {@code Ready} condition, whose transition time is when the errors began. Once they have lasted longer than the
     * run's {@code spec.timeout}, the run fails with reason {@code ReconcileError} and the last error's message.
     */
    @Override
    public ErrorStatusUpdateControl<BenchmarkRun> updateErrorStatus(BenchmarkRun run, Context<BenchmarkRun> context, Exception e) {
        BenchmarkRunStatus status = run.getStatus() == null ? new BenchmarkRunStatus() : run.getStatus();
        String error = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (status.phase != null && status.phase.isFinal()) {
            LOG.warn("reconcile of finished run {}/{} failed (its cleanup); retrying: {}", run.getMetadata().getNamespace(),
                    run.getMetadata().getName(), error);
            return ErrorStatusUpdateControl.noStatusUpdate();
        }
        Instant now = Instant.now(clock);
        var ready = RunConditions.find(status.conditions, RunConditions.READY);
        Instant failingSince = ready != null && "ReconcileError".equals(ready.getReason()) && ready.getLastTransitionTime() != null
                ? Instant.parse(ready.getLastTransitionTime()) : now;
        Duration limit = errorLimit(run);
        if (!now.isBefore(failingSince.plus(limit))) {
            LOG.warn("run {}/{} failed: its reconciles failed for {} s, longer than its timeout; the last: {}",
                    run.getMetadata().getNamespace(), run.getMetadata().getName(), limit.toSeconds(), error);
            Decision failed = RunProtocol.unreconcilable(status, "reconciles failed for " + limit.toSeconds()
                    + " s (spec.timeout); the last: " + error, now);
            RunEvents events = new RunEvents(context.getClient());
            failed.notices().forEach(n -> events.warning(run, n.reason(), n.message()));
            return ErrorStatusUpdateControl.patchStatus(forStatus(run, failed.status()));   // the retry cleans up
        }
        LOG.warn("reconcile of {}/{} failed; retrying", run.getMetadata().getNamespace(), run.getMetadata().getName(), e);
        if (ready != null && !"ReconcileError".equals(ready.getReason())) {
            status.conditions.remove(ready);   // Ready was Unknown since the run began: its time must be the first error's
        }
        RunConditions.set(status.conditions, RunConditions.READY, RunConditions.UNKNOWN, "ReconcileError", error, now);
        return ErrorStatusUpdateControl.patchStatus(forStatus(run, status));
    }

    private Duration errorLimit(BenchmarkRun run) {
        try {
            return RunPlanner.plan(run, defaultClientImage, ownImages).timeout();
        } catch (RuntimeException unplannable) {   // InvalidPlanException among them
            return DEFAULT_ERROR_LIMIT;
        }
    }

    private static BenchmarkRunStatus copyOf(String json) {
        try {
            return JSON.readValue(json, BenchmarkRunStatus.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String json(BenchmarkRunStatus status) {
        try {
            return JSON.writeValueAsString(status);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh object with only name, namespace and status: the status patch touches nothing else. */
    private static BenchmarkRun forStatus(BenchmarkRun run, BenchmarkRunStatus status) {
        BenchmarkRun fresh = new BenchmarkRun();
        fresh.setMetadata(new ObjectMetaBuilder().withName(run.getMetadata().getName()).withNamespace(run.getMetadata().getNamespace()).build());
        fresh.setStatus(status);
        return fresh;
    }
}
