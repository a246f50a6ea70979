package dev.pacer.operator.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkSchedule;
import dev.pacer.api.BenchmarkScheduleStatus;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.Phase;
import dev.pacer.api.Verdict;
import dev.pacer.engine.history.SeriesHistory;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.schedule.SchedulePlan;
import dev.pacer.operator.CachePruning;
import dev.pacer.operator.RunEvents;
import dev.pacer.operator.history.HistoryRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a BenchmarkSchedule: a thin adapter around {@link SchedulePlan}, which decides. Each reconcile reads the
 * schedule's runs (or suites) by its label, asks the history about the series of its runs, creates and deletes what the
 * plan says, emits its events and writes its status; it wakes at the next slot, at once when one of its runs changes,
 * and every half-minute while a slot runs. The cluster holds the state, so a restarted operator goes on where it was.
 */
@ControllerConfiguration(name = BenchmarkScheduleReconciler.NAME)
public class BenchmarkScheduleReconciler implements Reconciler<BenchmarkSchedule> {
    public static final String NAME = "benchmarkschedule";
    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkScheduleReconciler.class);
    /** While a slot runs (its runs' changes wake the schedule too). */
    private static final Duration POLL_ACTIVE = Duration.ofSeconds(30);
    /** At the latest, to say Stale in time. */
    private static final Duration POLL_IDLE = Duration.ofMinutes(5);

    private final Clock clock;
    private volatile HistoryRecorder history;
    private volatile RunEvents events;
    private volatile IndexedResourceCache<BenchmarkSchedule> schedules;

    public BenchmarkScheduleReconciler() {
        this(Clock.systemUTC());
    }

    public BenchmarkScheduleReconciler(Clock clock) {
        this.clock = clock;
    }

    /** The history its Regressed condition reads; without it, Regressed is Unknown (HistoryOff). */
    public BenchmarkScheduleReconciler readingHistoryFrom(HistoryRecorder recorder) {
        this.history = recorder;
        return this;
    }

    @Override
    public List<EventSource<?, BenchmarkSchedule>> prepareEventSources(EventSourceContext<BenchmarkSchedule> context) {
        var runs = InformerEventSourceConfiguration.from(BenchmarkRun.class, BenchmarkSchedule.class)
                .withLabelSelector(SchedulePlan.LABEL_SCHEDULE)
                .withSecondaryToPrimaryMapper(BenchmarkScheduleReconciler::scheduleOf)
                .withItemStore(CachePruning.withoutManagedFields())
                .build();
        var suites = InformerEventSourceConfiguration.from(BenchmarkSuite.class, BenchmarkSchedule.class)
                .withLabelSelector(SchedulePlan.LABEL_SCHEDULE)
                .withSecondaryToPrimaryMapper(BenchmarkScheduleReconciler::scheduleOf)
                .withItemStore(CachePruning.withoutManagedFields())
                .build();
        return List.of(new InformerEventSource<>(runs, context), new InformerEventSource<>(suites, context));
    }

    private static Set<ResourceID> scheduleOf(HasMetadata item) {
        String schedule = item.getMetadata().getLabels() == null ? null : item.getMetadata().getLabels().get(SchedulePlan.LABEL_SCHEDULE);
        return schedule == null ? Set.of() : Set.of(new ResourceID(schedule, item.getMetadata().getNamespace()));
    }

    /** The schedules in the operator's cache (for the metrics); empty until the first reconcile. */
    public Collection<BenchmarkSchedule> heldSchedules() {
        var cache = schedules;
        return cache == null ? List.of() : cache.list().toList();
    }

    @Override
    public UpdateControl<BenchmarkSchedule> reconcile(BenchmarkSchedule schedule, Context<BenchmarkSchedule> context) {
        schedules = context.getPrimaryCache();
        KubernetesClient client = context.getClient();
        RunEvents told = events != null ? events : (events = new RunEvents(client));
        Instant now = clock.instant();
        BenchmarkScheduleStatus before = schedule.getStatus();
        SchedulePlan plan;
        try {
            plan = SchedulePlan.of(schedule);
        } catch (RunPlanner.InvalidPlanException e) {
            BenchmarkScheduleStatus status = before == null ? new BenchmarkScheduleStatus() : before;
            status.observedGeneration = schedule.getMetadata().getGeneration();
            String message = e.problems().stream().map(Object::toString).collect(Collectors.joining("; "));
            if (RunConditions.set(status.conditions, RunConditions.READY, RunConditions.FALSE, "InvalidSpec", message, now)) {
                told.warning(schedule, "InvalidSpec", message);
            }
            status.nextScheduleTime = null;
            return UpdateControl.patchStatus(forStatus(schedule, status));   // the next edit of the spec reconciles it again
        }
        String namespace = schedule.getMetadata().getNamespace();
        String name = schedule.getMetadata().getName();
        List<BenchmarkRun> runs = client.resources(BenchmarkRun.class).inNamespace(namespace).withLabel(SchedulePlan.LABEL_SCHEDULE, name)
                .list().getItems();
        List<SchedulePlan.Item> items = new ArrayList<>();
        int repetitions = schedule.getSpec().repetitions == null ? 1 : schedule.getSpec().repetitions;
        if (plan.runsRuns()) {
            runs.stream().filter(r -> isItem(r)).forEach(r -> items.add(item(r, repetitions, state(r.getStatus()), message(r.getStatus()))));
        } else {
            client.resources(BenchmarkSuite.class).inNamespace(namespace).withLabel(SchedulePlan.LABEL_SCHEDULE, name).list().getItems()
                    .stream().filter(s -> isItem(s)).forEach(s -> items.add(item(s, repetitions, state(s), s.getStatus() == null ? null : RunConditions.failure(s.getStatus().conditions))));
        }
        Instant created = Instant.parse(schedule.getMetadata().getCreationTimestamp());
        SchedulePlan.Decision decision = plan.decide(new SchedulePlan.Observed(now, created, before, items, history(runs)));

        for (String gone : decision.deletes()) {
            var resource = plan.runsRuns() ? client.resources(BenchmarkRun.class) : client.resources(BenchmarkSuite.class);
            resource.inNamespace(namespace).withName(gone).delete();
            LOG.info("schedule {}/{}: deleted {}", namespace, name, gone);
        }
        for (SchedulePlan.Create create : decision.creates()) {
            HasMetadata item = plan.runsRuns() ? plan.run(create) : plan.suite(create);
            item.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(schedule.getApiVersion())
                    .withKind(schedule.getKind()).withName(name).withUid(schedule.getMetadata().getUid())
                    .withController(true).withBlockOwnerDeletion(true).build()));
            try {
                client.resource(item).create();
                LOG.info("schedule {}/{}: created {} for the slot of {}", namespace, name, create.name(), create.slot());
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }
        decision.events().forEach(event -> {
            if (event.warning()) {
                told.warning(schedule, event.reason(), event.message());
            } else {
                told.normal(schedule, event.reason(), event.message());
            }
        });
        Duration wait = decision.status().activeCount > 0 ? POLL_ACTIVE : POLL_IDLE;
        Duration untilNext = decision.wakeAt().map(at -> Duration.between(now, at).plusSeconds(1)).orElse(wait);
        return UpdateControl.patchStatus(forStatus(schedule, decision.status()))
                .rescheduleAfter(untilNext.compareTo(wait) < 0 ? untilNext : wait);
    }

    /** A resource the schedule made for a slot, and not going away. */
    private static boolean isItem(HasMetadata resource) {
        return SchedulePlan.slotOf(resource).isPresent() && resource.getMetadata().getDeletionTimestamp() == null;
    }

    private static SchedulePlan.Item item(HasMetadata resource, int repetitions, SchedulePlan.ItemState state, String message) {
        return new SchedulePlan.Item(resource.getMetadata().getName(), SchedulePlan.slotOf(resource).orElseThrow(),
                SchedulePlan.repetitionOf(resource), SchedulePlan.repetitionsOf(resource, repetitions), state, message);
    }

    /** A run gave figures: Succeeded, its verdict not Invalid (Failed criteria are figures too: the history judges them). */
    static SchedulePlan.ItemState state(BenchmarkRunStatus status) {
        if (status == null || status.phase == null || !status.phase.isFinal()) {
            return SchedulePlan.ItemState.Running;
        }
        boolean figures = status.phase == Phase.Succeeded && status.result != null && status.result.verdict != Verdict.Invalid;
        return figures ? SchedulePlan.ItemState.Succeeded : SchedulePlan.ItemState.Failed;
    }

    private static String message(BenchmarkRunStatus status) {
        if (status == null || status.phase == null || !status.phase.isFinal()) {
            return null;
        }
        if (status.phase == Phase.Succeeded && status.result != null) {
            return "verdict " + status.result.verdict;
        }
        String failure = RunConditions.failure(status.conditions);
        return failure == null ? status.phase.name() : failure;
    }

    private static SchedulePlan.ItemState state(BenchmarkSuite suite) {
        String phase = suite.getStatus() == null ? null : suite.getStatus().phase;
        return "Succeeded".equals(phase) ? SchedulePlan.ItemState.Succeeded
                : "Failed".equals(phase) ? SchedulePlan.ItemState.Failed : SchedulePlan.ItemState.Running;
    }

    /** What the history says of the series of the schedule's finished runs (a scheduled suite's runs too). */
    private SchedulePlan.History history(List<BenchmarkRun> runs) {
        HistoryRecorder recorder = history;
        if (recorder == null) {
            return SchedulePlan.History.OFF;
        }
        recorder.refreshAcknowledgements();
        Set<String> seen = new LinkedHashSet<>();
        List<String> alerting = new ArrayList<>();
        for (BenchmarkRun run : runs) {
            if (run.getStatus() == null || run.getStatus().phase != Phase.Succeeded) {
                continue;
            }
            Optional<SeriesHistory> series = recorder.seriesOf(run);
            if (series.isPresent() && seen.add(series.get().key().id())) {
                series.get().alerting().forEach(change -> alerting.add(HistoryRecorder.sentence(series.get(), change)));
            }
        }
        return new SchedulePlan.History(true, seen.size(), alerting);
    }

    private static BenchmarkSchedule forStatus(BenchmarkSchedule schedule, BenchmarkScheduleStatus status) {
        BenchmarkSchedule fresh = new BenchmarkSchedule();
        fresh.setMetadata(new ObjectMetaBuilder().withName(schedule.getMetadata().getName())
                .withNamespace(schedule.getMetadata().getNamespace()).build());
        fresh.setStatus(status);
        return fresh;
    }
}
