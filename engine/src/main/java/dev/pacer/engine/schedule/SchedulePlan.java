package dev.pacer.engine.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunSpec;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSchedule;
import dev.pacer.api.BenchmarkScheduleSpec;
import dev.pacer.api.BenchmarkScheduleSpec.ConcurrencyPolicy;
import dev.pacer.api.BenchmarkScheduleStatus;
import dev.pacer.api.BenchmarkScheduleValidation;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteSpec;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Quantities;
import dev.pacer.api.ScheduleTimes;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.suite.SuitePlan;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/**
 * A BenchmarkSchedule's decisions, pure: from what the cluster holds (the slots' runs or suites, the status) and the
 * time, which slot starts, which is skipped or missed, which repetition comes next, what is deleted, and the status
 * with its conditions. CronJob's rules: only the latest slot due is started, a slot later than
 * {@code startingDeadlineSeconds} is missed, and {@code concurrencyPolicy} decides about a slot that comes while an
 * earlier one runs. A slot's repetitions run one after another. The cluster holds the state: the items carry their
 * slot (an annotation), and the last slot skipped or missed is in the status.
 */
public final class SchedulePlan {
    /** On every run (and suite) a schedule makes, and on a scheduled suite's runs: the schedule's name. */
    public static final String LABEL_SCHEDULE = "pacer.dev/schedule";
    /** The label that opts a run into the history (the operator's history recorder reads it). */
    public static final String LABEL_HISTORY = "pacer.dev/history";
    /** On a slot's item: the slot's time, RFC 3339. */
    public static final String ANNOTATION_SLOT = "pacer.dev/slot";
    /** On a slot's item: the slot's repetitions, spec.repetitions when the slot started (a later change is the next slot's). */
    public static final String ANNOTATION_REPETITIONS = "pacer.dev/repetitions";
    /** On a slot's item: its repetition, 1 to the slot's repetitions. */
    public static final String ANNOTATION_REPETITION = "pacer.dev/repetition";
    public static final String REGRESSED = "Regressed";
    public static final String STALE = "Stale";
    /** Without spec.staleAfter: stale once this many slots came after the last successful one. */
    public static final int STALE_AFTER_SLOTS = 3;
    private static final DateTimeFormatter SLOT_NAME = DateTimeFormatter.ofPattern("yyMMddHHmm").withZone(ZoneOffset.UTC);
    /** Slots counted at most between two instants (a schedule every minute, left a week). */
    private static final int MAX_COUNTED = 20_000;

    private final BenchmarkSchedule schedule;
    private final ScheduleTimes times;

    private SchedulePlan(BenchmarkSchedule schedule, ScheduleTimes times) {
        this.schedule = schedule;
        this.times = times;
    }

    /** The plan of a valid schedule; its problems, each named, else (its template's as its first run would be planned). */
    public static SchedulePlan of(BenchmarkSchedule schedule) {
        BenchmarkScheduleValidation.Checked checked = BenchmarkScheduleValidation.check(schedule);
        if (!checked.problems().isEmpty()) {
            throw new RunPlanner.InvalidPlanException(checked.problems());
        }
        SchedulePlan plan = new SchedulePlan(schedule, checked.times());
        Create sample = new Create(plan.itemName(Instant.EPOCH, 1, 1), Instant.EPOCH, 1, 1);
        try {
            if (plan.spec().template.run != null) {
                RunPlanner.plan(plan.run(sample));
            } else {
                SuitePlan.of(plan.suite(sample));
            }
        } catch (RunPlanner.InvalidPlanException e) {
            List<FieldProblem> problems = BenchmarkScheduleValidation.under(plan.runsRuns() ? "spec.template.run" : "spec.template.suite",
                    e.problems());
            throw new RunPlanner.InvalidPlanException(problems);
        }
        return plan;
    }

    private BenchmarkScheduleSpec spec() {
        return schedule.getSpec();
    }

    /** What a slot's item is now. */
    public enum ItemState {
        Running, Succeeded, Failed
    }

    /** A run or suite of a slot, as observed: its slot and repetition from its annotations. */
    public record Item(String name, Instant slot, int repetition, int repetitions, ItemState state, String message) {
    }

    /** What the history says of the series of the schedule's runs. */
    public record History(boolean kept, int series, List<String> alerting) {
        public static final History OFF = new History(false, 0, List.of());
    }

    /** Everything observed: the time, the schedule's creation, its status as last written, its items. */
    public record Observed(Instant now, Instant created, BenchmarkScheduleStatus status, List<Item> items, History history) {
    }

    /** A slot's next item to create: its repetition of the slot's {@code repetitions}. */
    public record Create(String name, Instant slot, int repetition, int repetitions) {
    }

    /** An event on the schedule, at a transition. */
    public record Event(boolean warning, String reason, String message) {
    }

    /** What to do, and the status to write. */
    public record Decision(List<Create> creates, List<String> deletes, List<Event> events, BenchmarkScheduleStatus status,
            Optional<Instant> wakeAt) {
    }

    public Decision decide(Observed observed) {
        Instant now = observed.now();
        BenchmarkScheduleStatus before = observed.status() == null ? new BenchmarkScheduleStatus() : observed.status();
        int repetitions = spec().repetitions == null ? 1 : spec().repetitions;
        List<Create> creates = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        List<Event> events = new ArrayList<>();

        // the slots: those with items, and those the status recorded without items (skipped, missed, replaced)
        TreeMap<Instant, List<Item>> itemsBySlot = new TreeMap<>();
        observed.items().stream().sorted(Comparator.comparing(Item::slot).thenComparingInt(Item::repetition))
                .forEach(i -> itemsBySlot.computeIfAbsent(i.slot(), s -> new ArrayList<>()).add(i));
        TreeMap<Instant, BenchmarkScheduleStatus.Slot> slots = new TreeMap<>();
        for (BenchmarkScheduleStatus.Slot recorded : before.slots) {
            Instant at = parse(recorded.time);
            if (at != null && !itemsBySlot.containsKey(at) && !"Running".equals(recorded.state)) {
                slots.put(at, recorded);
            }
        }
        itemsBySlot.forEach((at, items) -> slots.put(at, slotOf(at, items)));

        Instant last = max(parse(before.lastScheduleTime), itemsBySlot.isEmpty() ? null : itemsBySlot.lastKey());
        Instant reference = last != null ? last : observed.created();
        boolean suspended = Boolean.TRUE.equals(spec().suspend);
        Optional<Instant> due = times.latestAtOrBefore(now).filter(at -> at.isAfter(reference));
        if (!suspended && due.isPresent()) {
            Instant slot = due.get();
            int earlier = count(reference, slot, MAX_COUNTED) - 1;
            String unstarted = earlier > 0 ? " (" + earlier + " earlier slot" + (earlier == 1 ? "" : "s") + " since " + reference
                    + " not started: only the latest due slot starts)" : "";
            List<Instant> running = slots.entrySet().stream().filter(e -> "Running".equals(e.getValue().state)).map(Map.Entry::getKey).toList();
            long lateSeconds = Duration.between(slot, now).toSeconds();
            if (spec().startingDeadlineSeconds != null && lateSeconds > spec().startingDeadlineSeconds) {
                String why = "missed: " + lateSeconds + " s late, past spec.startingDeadlineSeconds (" + spec().startingDeadlineSeconds + " s)" + unstarted;
                slots.put(slot, skipped(slot, "Missed", why));
                events.add(new Event(true, "SlotMissed", "slot " + slot + " " + why));
            } else if (!running.isEmpty() && spec().concurrencyPolicy == ConcurrencyPolicy.Forbid) {
                String why = "skipped: the slot of " + running.get(running.size() - 1) + " is still running (spec.concurrencyPolicy: Forbid)";
                slots.put(slot, skipped(slot, "Skipped", why));
                events.add(new Event(true, "SlotSkipped", "slot " + slot + " " + why));
            } else {
                if (!running.isEmpty() && spec().concurrencyPolicy == ConcurrencyPolicy.Replace) {
                    for (Instant old : running) {
                        BenchmarkScheduleStatus.Slot replaced = slots.get(old);
                        deletes.addAll(itemsBySlot.get(old).stream().filter(i -> i.state() == ItemState.Running).map(Item::name).toList());
                        replaced.state = "Replaced";
                        replaced.message = "replaced by the slot of " + slot + " (spec.concurrencyPolicy: Replace): its runs under way were deleted";
                        events.add(new Event(true, "SlotReplaced", "slot " + old + " " + replaced.message));
                    }
                }
                Create first = new Create(itemName(slot, 1, repetitions), slot, 1, repetitions);
                creates.add(first);
                BenchmarkScheduleStatus.Slot started = new BenchmarkScheduleStatus.Slot();
                started.time = slot.toString();
                started.state = "Running";
                started.runs.add(first.name());
                started.message = unstarted.isEmpty() ? null : unstarted.strip();
                slots.put(slot, started);
                events.add(new Event(false, "SlotStarted", "slot " + slot + ": " + kind() + " " + first.name()
                        + (repetitions > 1 ? " (repetition 1 of " + repetitions + ")" : "") + unstarted));
            }
            last = slot;
        }

        // the next repetition of each slot whose last item finished
        itemsBySlot.forEach((at, items) -> {
            BenchmarkScheduleStatus.Slot slot = slots.get(at);
            Item latest = items.get(items.size() - 1);
            if ("Running".equals(slot.state) && latest.state() != ItemState.Running && latest.repetition() < latest.repetitions()) {
                Create next = new Create(itemName(at, latest.repetition() + 1, latest.repetitions()), at, latest.repetition() + 1,
                        latest.repetitions());
                creates.add(next);
                slot.runs.add(next.name());
            }
        });

        // keep: the slots under way, and the last spec.keep others; older ones go, with their items
        int keep = spec().keep == null ? 10 : spec().keep;
        List<Instant> finished = slots.entrySet().stream().filter(e -> !"Running".equals(e.getValue().state)).map(Map.Entry::getKey).toList();
        for (Instant old : finished.subList(0, Math.max(0, finished.size() - keep))) {
            slots.remove(old);
            itemsBySlot.getOrDefault(old, List.of()).forEach(i -> deletes.add(i.name()));
        }

        BenchmarkScheduleStatus status = new BenchmarkScheduleStatus();
        status.observedGeneration = schedule.getMetadata().getGeneration();
        status.conditions = new ArrayList<>(before.conditions);
        status.lastScheduleTime = last == null ? null : last.toString();
        Optional<Instant> next = suspended ? Optional.empty() : times.next(now);
        status.nextScheduleTime = next.map(Instant::toString).orElse(null);
        status.slots = new ArrayList<>(slots.values());
        status.active = slots.values().stream().filter(s -> "Running".equals(s.state)).flatMap(s -> s.runs.stream())
                .filter(name -> itemsBySlot.values().stream().flatMap(List::stream).noneMatch(i -> i.name().equals(name) && i.state() != ItemState.Running))
                .toList();
        status.activeCount = (int) slots.values().stream().filter(s -> "Running".equals(s.state)).count();
        Instant lastSuccess = max(parse(before.lastSuccessfulTime), slots.entrySet().stream().filter(e -> "Succeeded".equals(e.getValue().state))
                .map(Map.Entry::getKey).max(Comparator.naturalOrder()).orElse(null));
        status.lastSuccessfulTime = lastSuccess == null ? null : lastSuccess.toString();

        ready(status, suspended, next, now);
        stale(status, suspended, lastSuccess, observed.created(), slots, now, events);
        regressed(status, observed.history(), now, events);
        return new Decision(creates, deletes, events, status, next);
    }

    private static BenchmarkScheduleStatus.Slot slotOf(Instant at, List<Item> items) {
        BenchmarkScheduleStatus.Slot slot = new BenchmarkScheduleStatus.Slot();
        slot.time = at.toString();
        slot.runs = new ArrayList<>(items.stream().map(Item::name).toList());
        Item latest = items.get(items.size() - 1);
        boolean more = latest.repetition() < latest.repetitions() && latest.state() != ItemState.Running;
        if (items.stream().anyMatch(i -> i.state() == ItemState.Running) || more) {
            slot.state = "Running";
        } else {
            Optional<Item> failed = items.stream().filter(i -> i.state() == ItemState.Failed).findFirst();
            slot.state = failed.isPresent() ? "Failed" : "Succeeded";
            slot.message = failed.map(i -> i.name() + ": " + i.message()).orElse(null);
        }
        return slot;
    }

    private static BenchmarkScheduleStatus.Slot skipped(Instant at, String state, String message) {
        BenchmarkScheduleStatus.Slot slot = new BenchmarkScheduleStatus.Slot();
        slot.time = at.toString();
        slot.state = state;
        slot.message = message;
        return slot;
    }

    private void ready(BenchmarkScheduleStatus status, boolean suspended, Optional<Instant> next, Instant now) {
        if (suspended) {
            set(status, "Ready", "False", "Suspended", "spec.suspend is true: no new slot starts; set it to false to go on", now);
        } else {
            set(status, "Ready", "True", "Scheduled", next.map(at -> "next slot " + at + " (" + times + ")")
                    .orElse("no slot comes any more (" + times + ")"), now);
        }
    }

    private void stale(BenchmarkScheduleStatus status, boolean suspended, Instant lastSuccess, Instant created,
            TreeMap<Instant, BenchmarkScheduleStatus.Slot> slots, Instant now, List<Event> events) {
        Instant since = lastSuccess != null ? lastSuccess : created;
        String sinceText = lastSuccess != null ? "the last successful slot, " + lastSuccess : "the schedule's creation, " + created;
        boolean stale;
        String bound;
        if (spec().staleAfter != null) {
            Duration after = Quantities.parseDuration(spec().staleAfter);
            stale = Duration.between(since, now).compareTo(after) > 0;
            bound = "spec.staleAfter " + spec().staleAfter;
        } else {
            stale = count(since, now, STALE_AFTER_SLOTS) >= STALE_AFTER_SLOTS;
            bound = STALE_AFTER_SLOTS + " slots (spec.staleAfter unset)";
        }
        if (suspended && !stale) {
            set(status, STALE, "False", "Suspended", "no slot runs while suspended", now);
            return;
        }
        if (stale) {
            String lastFailure = slots.descendingMap().values().stream().filter(s -> s.message != null && !"Running".equals(s.state))
                    .findFirst().map(s -> "; the latest: " + s.time + " " + s.state + ", " + s.message).orElse("");
            String message = "no slot gave figures since " + sinceText + ", longer than " + bound + lastFailure;
            if (set(status, STALE, "True", "NoSuccessfulSlot", message, now)) {
                events.add(new Event(true, "Stale", message));
            }
        } else {
            set(status, STALE, "False", lastSuccess != null ? "Succeeding" : "Young",
                    lastSuccess != null ? "the last successful slot: " + lastSuccess : "no slot succeeded yet, within " + bound, now);
        }
    }

    private static void regressed(BenchmarkScheduleStatus status, History history, Instant now, List<Event> events) {
        if (!history.kept()) {
            set(status, REGRESSED, "Unknown", "HistoryOff", "the operator keeps no history: set history.enabled in the chart "
                    + "(docs/history.md) to have the runs recorded and their changes found", now);
        } else if (history.series() == 0) {
            set(status, REGRESSED, "Unknown", "NoHistoryYet", "no run of this schedule is in the history yet", now);
        } else if (history.alerting().isEmpty()) {
            set(status, REGRESSED, "False", "NoConfirmedChange", "no confirmed, unacknowledged regression in the "
                    + history.series() + " series of its runs", now);
        } else {
            String message = String.join(" | ", history.alerting());
            boolean was = "True".equals(find(status, REGRESSED));
            set(status, REGRESSED, "True", "Regressed", message, now);
            if (!was) {
                events.add(new Event(true, "Regressed", message));
            }
        }
    }

    private static boolean set(BenchmarkScheduleStatus status, String type, String value, String reason, String message, Instant now) {
        boolean was = value.equals(find(status, type));
        RunConditions.set(status.conditions, type, value, reason, message, now);
        return !was;
    }

    private static String find(BenchmarkScheduleStatus status, String type) {
        var condition = RunConditions.find(status.conditions, type);
        return condition == null ? null : condition.getStatus();
    }

    /** The slots in (from, to], counted up to {@code most}. */
    private int count(Instant from, Instant to, int most) {
        int n = 0;
        Optional<Instant> at = times.next(from);
        while (at.isPresent() && !at.get().isAfter(to) && n < most) {
            n++;
            at = times.next(at.get());
        }
        return n;
    }

    /** A slot's item: {@code <schedule>-<yyMMddHHmm, UTC>}, and {@code -<repetition>} when a slot has several. */
    public String itemName(Instant slot, int repetition, int repetitions) {
        return schedule.getMetadata().getName() + "-" + SLOT_NAME.format(slot) + (repetitions > 1 ? "-" + repetition : "");
    }

    private String kind() {
        return spec().template.run != null ? "run" : "suite";
    }

    /** Whether the slots run BenchmarkRuns (else BenchmarkSuites). */
    public boolean runsRuns() {
        return spec().template.run != null;
    }

    /** The BenchmarkRun of a create: the template, labelled for the schedule and the history, kept by the schedule. */
    public BenchmarkRun run(Create create) {
        BenchmarkRunSpec spec = BenchmarkRunYaml.YAML.convertValue(spec().template.run, BenchmarkRunSpec.class);
        if (spec.cleanup != null) {
            spec.cleanup.ttlSecondsAfterFinished = null;   // spec.keep decides when a slot's runs go
        }
        BenchmarkRun run = new BenchmarkRun();
        run.setMetadata(metadata(create));
        run.setSpec(spec);
        return run;
    }

    /** The BenchmarkSuite of a create: the template, labelled as a run is (its runs take the labels). */
    public BenchmarkSuite suite(Create create) {
        BenchmarkSuiteSpec spec = BenchmarkRunYaml.YAML.convertValue(spec().template.suite, BenchmarkSuiteSpec.class);
        if (spec.template != null && spec.template.cleanup != null) {
            spec.template.cleanup.ttlSecondsAfterFinished = null;
        }
        BenchmarkSuite suite = new BenchmarkSuite();
        suite.setMetadata(metadata(create));
        suite.setSpec(spec);
        return suite;
    }

    private ObjectMeta metadata(Create create) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(LABEL_SCHEDULE, schedule.getMetadata().getName());
        labels.put(LABEL_HISTORY, "true");
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(ANNOTATION_SLOT, create.slot().toString());
        annotations.put(ANNOTATION_REPETITION, Integer.toString(create.repetition()));
        annotations.put(ANNOTATION_REPETITIONS, Integer.toString(create.repetitions()));
        return new ObjectMetaBuilder().withName(create.name()).withNamespace(schedule.getMetadata().getNamespace())
                .withLabels(labels).withAnnotations(annotations).build();
    }

    /** A slot item's slot and repetition, from its annotations; empty for a resource the schedule did not make. */
    public static Optional<Instant> slotOf(HasMetadata item) {
        Map<String, String> annotations = item.getMetadata().getAnnotations();
        return Optional.ofNullable(annotations == null ? null : parse(annotations.get(ANNOTATION_SLOT)));
    }

    /** The repetitions of a slot item's slot, from its annotation; {@code otherwise} for an item without one. */
    public static int repetitionsOf(HasMetadata item, int otherwise) {
        Map<String, String> annotations = item.getMetadata().getAnnotations();
        try {
            return annotations == null || !annotations.containsKey(ANNOTATION_REPETITIONS) ? otherwise
                    : Integer.parseInt(annotations.get(ANNOTATION_REPETITIONS));
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    public static int repetitionOf(HasMetadata item) {
        Map<String, String> annotations = item.getMetadata().getAnnotations();
        try {
            return annotations == null ? 1 : Integer.parseInt(annotations.getOrDefault(ANNOTATION_REPETITION, "1"));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static Instant parse(String time) {
        if (time == null) {
            return null;
        }
        try {
            return Instant.parse(time);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Instant max(Instant a, Instant b) {
        return a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
    }
}
