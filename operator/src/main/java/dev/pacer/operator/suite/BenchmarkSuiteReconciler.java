package dev.pacer.operator.suite;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.api.Phase;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.suite.SuiteOutcome;
import dev.pacer.engine.suite.SuitePlan;
import dev.pacer.engine.suite.SuiteSummary;
import dev.pacer.operator.CachePruning;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a BenchmarkSuite: one BenchmarkRun at a time, owned by the suite, in the order of its {@link SuitePlan}. The
 * cluster holds the whole state: each reconcile walks the plan from the start, reading each step's run by its name
 * (finished: its outcome; under way: wait; absent: create it), so an operator restarted anywhere picks the suite up
 * where it was. A run's status changing reconciles its suite at once (the runs are watched by owner).
 */
@ControllerConfiguration(name = BenchmarkSuiteReconciler.NAME)
public class BenchmarkSuiteReconciler implements Reconciler<BenchmarkSuite> {
    public static final String NAME = "benchmarksuite";
    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkSuiteReconciler.class);
    private static final Duration POLL = Duration.ofSeconds(10);

    private final Clock clock;
    private volatile IndexedResourceCache<BenchmarkSuite> suites;

    public BenchmarkSuiteReconciler() {
        this(Clock.systemUTC());
    }

    public BenchmarkSuiteReconciler(Clock clock) {
        this.clock = clock;
    }

    @Override
    public List<EventSource<?, BenchmarkSuite>> prepareEventSources(EventSourceContext<BenchmarkSuite> context) {
        var runs = InformerEventSourceConfiguration.from(BenchmarkRun.class, BenchmarkSuite.class)
                .withLabelSelector(SuitePlan.LABEL_SUITE)
                .withItemStore(CachePruning.withoutManagedFields())
                .build();
        return List.of(new InformerEventSource<>(runs, context));
    }

    /** The suites in the operator's cache (for the metrics); empty until the first reconcile. */
    public Collection<BenchmarkSuite> heldSuites() {
        var cache = suites;
        return cache == null ? List.of() : cache.list().toList();
    }

    @Override
    public UpdateControl<BenchmarkSuite> reconcile(BenchmarkSuite suite, Context<BenchmarkSuite> context) {
        suites = context.getPrimaryCache();
        BenchmarkSuiteStatus before = suite.getStatus();
        if (before != null && ("Succeeded".equals(before.phase) || "Failed".equals(before.phase))) {
            return UpdateControl.noUpdate();
        }
        BenchmarkSuiteStatus status = new BenchmarkSuiteStatus();
        status.observedGeneration = suite.getMetadata().getGeneration();
        if (before != null) {
            status.conditions = before.conditions;
        }
        SuitePlan plan;
        try {
            plan = SuitePlan.of(suite);
        } catch (RunPlanner.InvalidPlanException e) {
            status.phase = "Failed";
            String message = e.problems().stream().map(Object::toString).collect(Collectors.joining("; "));
            RunConditions.set(status.conditions, RunConditions.FAILED, RunConditions.TRUE, "InvalidSpec", message, clock.instant());
            RunConditions.set(status.conditions, RunConditions.READY, RunConditions.FALSE, "InvalidSpec", message, clock.instant());
            return UpdateControl.patchStatus(forStatus(suite, status));
        }
        Map<String, BenchmarkRun> runs = context.getSecondaryResources(BenchmarkRun.class).stream()
                .collect(Collectors.toMap(r -> r.getMetadata().getName(), r -> r, (a, b) -> a));
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        String current = null;
        while ((next = plan.next(done)).isPresent()) {
            SuitePlan.Step step = next.get();
            BenchmarkRun run = runs.get(step.runName());
            if (run == null) {
                run = context.getClient().resources(BenchmarkRun.class).inNamespace(suite.getMetadata().getNamespace())
                        .withName(step.runName()).get();   // the cache may not have caught up with a create
            }
            if (run == null) {
                create(suite, plan, step, context);
                current = step.runName();
                break;
            }
            Optional<SuiteOutcome> outcome = outcome(run);
            if (outcome.isEmpty()) {
                current = step.runName();
                break;
            }
            done.add(new SuitePlan.Done(step, outcome.get()));
        }
        SuiteSummary summary = SuiteSummary.of(plan, done);
        status.runs = summary.runs();
        status.servers = summary.servers();
        status.comparisons = summary.comparisons();
        status.comparisonSeries = summary.series();
        status.runsDone = done.size();
        status.currentRun = current;
        boolean complete = next.isEmpty();
        status.phase = complete ? "Succeeded" : "Running";
        RunConditions.set(status.conditions, RunConditions.READY, complete ? RunConditions.TRUE : RunConditions.UNKNOWN,
                complete ? "Complete" : "Running", complete ? "every run of the suite is done" : "running " + current
                        + " (" + done.size() + " done" + plan.plannedRuns().stream().mapToObj(n -> " of " + n).findFirst().orElse("") + ")",
                clock.instant());
        if (complete) {
            RunConditions.set(status.conditions, RunConditions.COMPLETE, RunConditions.TRUE, "Complete",
                    done.size() + " runs; " + String.join("; ", summary.comparisons()), clock.instant());
        }
        UpdateControl<BenchmarkSuite> control = UpdateControl.patchStatus(forStatus(suite, status));
        return complete ? control : control.rescheduleAfter(POLL);
    }

    /** A finished run's outcome; empty while it is under way. */
    static Optional<SuiteOutcome> outcome(BenchmarkRun run) {
        BenchmarkRunStatus status = run.getStatus();
        if (status == null || status.phase == null || !status.phase.isFinal()) {
            return Optional.empty();
        }
        if (status.phase == Phase.Succeeded && status.result != null) {
            return Optional.of(SuiteOutcome.of(status.result));
        }
        String failure = RunConditions.failure(status.conditions);
        return Optional.of(SuiteOutcome.failed(failure == null ? status.phase.name() : failure));
    }

    private void create(BenchmarkSuite suite, SuitePlan plan, SuitePlan.Step step, Context<BenchmarkSuite> context) {
        BenchmarkRun run = plan.run(step);
        run.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(suite.getApiVersion())
                .withKind(suite.getKind()).withName(suite.getMetadata().getName()).withUid(suite.getMetadata().getUid())
                .withController(true).withBlockOwnerDeletion(true).build()));
        try {
            context.getClient().resource(run).create();
            LOG.info("suite {}/{}: created run {}", suite.getMetadata().getNamespace(), suite.getMetadata().getName(), step.runName());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    private static BenchmarkSuite forStatus(BenchmarkSuite suite, BenchmarkSuiteStatus status) {
        BenchmarkSuite fresh = new BenchmarkSuite();
        fresh.setMetadata(new ObjectMetaBuilder().withName(suite.getMetadata().getName())
                .withNamespace(suite.getMetadata().getNamespace()).build());
        fresh.setStatus(status);
        return fresh;
    }
}
