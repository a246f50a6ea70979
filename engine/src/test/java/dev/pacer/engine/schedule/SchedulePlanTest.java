package dev.pacer.engine.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSchedule;
import dev.pacer.api.BenchmarkScheduleSpec.ConcurrencyPolicy;
import dev.pacer.api.BenchmarkScheduleStatus;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.schedule.SchedulePlan.Decision;
import dev.pacer.engine.schedule.SchedulePlan.History;
import dev.pacer.engine.schedule.SchedulePlan.Item;
import dev.pacer.engine.schedule.SchedulePlan.ItemState;
import dev.pacer.engine.schedule.SchedulePlan.Observed;
import org.junit.jupiter.api.Test;

/** The schedule's decisions, slot by slot, over a clock the test sets: CronJob's rules, a slot's repetitions, keep, Stale, Regressed. */
class SchedulePlanTest {
    private static final Instant CREATED = Instant.parse("2026-11-28T12:00:30Z");

    private static BenchmarkSchedule schedule(String cron, int repetitions) throws Exception {
        BenchmarkSchedule schedule = BenchmarkRunYaml.readSchedule(Path.of("../examples/schedules/nightly-jetty12.yaml"));
        schedule.getMetadata().setNamespace("bench");
        schedule.getSpec().schedule = cron;
        schedule.getSpec().timeZone = "UTC";
        schedule.getSpec().repetitions = repetitions;
        schedule.getSpec().startingDeadlineSeconds = null;
        schedule.getSpec().staleAfter = null;
        return schedule;
    }

    /** Decides, then feeds the status back, as the cluster would between two reconciles. */
    private static final class Cluster {
        final SchedulePlan plan;
        final List<Item> items = new ArrayList<>();
        BenchmarkScheduleStatus status;
        History history = History.OFF;

        Cluster(BenchmarkSchedule schedule) {
            plan = SchedulePlan.of(schedule);
        }

        Decision at(String time) {
            Decision decision = plan.decide(new Observed(Instant.parse(time), CREATED, status, List.copyOf(items), history));
            decision.creates().forEach(c -> items.add(new Item(c.name(), c.slot(), c.repetition(), c.repetitions(), ItemState.Running, null)));
            items.removeIf(i -> decision.deletes().contains(i.name()));
            status = decision.status();
            return decision;
        }

        void finish(String name, ItemState state) {
            Item item = items.stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow();
            items.set(items.indexOf(item), new Item(name, item.slot(), item.repetition(), item.repetitions(), state,
                    state == ItemState.Failed ? "Invalid: the clients fell behind" : null));
        }
    }

    private static String condition(BenchmarkScheduleStatus status, String type) {
        return RunConditions.find(status.conditions, type).getStatus();
    }

    @Test
    void nothingStartsBeforeTheFirstSlotAfterCreationThenTheSlotStartsOnce() throws Exception {
        Cluster cluster = new Cluster(schedule("0 * * * *", 1));
        Decision before = cluster.at("2026-11-28T12:59:59Z");
        assertThat(before.creates()).isEmpty();
        assertThat(before.status().nextScheduleTime).isEqualTo("2026-11-28T13:00:00Z");
        assertThat(before.wakeAt()).contains(Instant.parse("2026-11-28T13:00:00Z"));
        assertThat(condition(before.status(), "Ready")).isEqualTo("True");

        Decision due = cluster.at("2026-11-28T13:00:02Z");
        assertThat(due.creates()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo("nightly-jetty12-2611281300");
            assertThat(c.slot()).isEqualTo(Instant.parse("2026-11-28T13:00:00Z"));
        });
        assertThat(due.events()).extracting(SchedulePlan.Event::reason).contains("SlotStarted");
        assertThat(due.status().active).containsExactly("nightly-jetty12-2611281300");
        assertThat(due.status().lastScheduleTime).isEqualTo("2026-11-28T13:00:00Z");
        assertThat(cluster.at("2026-11-28T13:00:40Z").creates()).as("a slot starts once").isEmpty();
    }

    @Test
    void aSlotsRepetitionsRunOneAfterAnotherAndItSucceedsWhenAllGaveFigures() throws Exception {
        Cluster cluster = new Cluster(schedule("0 13 * * *", 3));
        assertThat(cluster.at("2026-11-28T13:00:01Z").creates()).extracting(SchedulePlan.Create::name).containsExactly("nightly-jetty12-2611281300-1");
        assertThat(cluster.at("2026-11-28T13:01:00Z").creates()).as("not while the first runs").isEmpty();
        cluster.finish("nightly-jetty12-2611281300-1", ItemState.Succeeded);
        assertThat(cluster.at("2026-11-28T13:02:00Z").creates()).extracting(SchedulePlan.Create::name).containsExactly("nightly-jetty12-2611281300-2");
        cluster.finish("nightly-jetty12-2611281300-2", ItemState.Succeeded);
        assertThat(cluster.at("2026-11-28T13:03:00Z").creates()).extracting(SchedulePlan.Create::repetition).containsExactly(3);
        assertThat(cluster.status.slots).singleElement().satisfies(s -> assertThat(s.state).isEqualTo("Running"));
        cluster.finish("nightly-jetty12-2611281300-3", ItemState.Succeeded);
        Decision done = cluster.at("2026-11-28T13:04:00Z");
        assertThat(done.creates()).isEmpty();
        assertThat(done.status().slots).singleElement().satisfies(s -> {
            assertThat(s.state).isEqualTo("Succeeded");
            assertThat(s.runs).hasSize(3);
        });
        assertThat(done.status().lastSuccessfulTime).isEqualTo("2026-11-28T13:00:00Z");
        assertThat(done.status().active).isEmpty();
    }

    @Test
    void aChangeOfRepetitionsIsTheNextSlotsAFinishedSlotStaysFinished() throws Exception {
        BenchmarkSchedule schedule = schedule("*/10 * * * *", 2);
        Cluster cluster = new Cluster(schedule);
        cluster.at("2026-11-28T12:10:00Z");
        cluster.finish("nightly-jetty12-2611281210-1", ItemState.Succeeded);
        cluster.at("2026-11-28T12:11:00Z");
        cluster.finish("nightly-jetty12-2611281210-2", ItemState.Succeeded);
        schedule.getSpec().repetitions = 4;
        Cluster changed = new Cluster(schedule);
        changed.items.addAll(cluster.items);
        changed.status = cluster.status;
        Decision decision = changed.at("2026-11-28T12:12:00Z");
        assertThat(decision.creates()).as("no third run for the finished slot").isEmpty();
        assertThat(decision.status().slots).singleElement().satisfies(s -> assertThat(s.state).isEqualTo("Succeeded"));
        assertThat(changed.at("2026-11-28T12:20:01Z").creates()).singleElement()
                .satisfies(c -> assertThat(c.repetitions()).as("the next slot takes it").isEqualTo(4));
    }

    @Test
    void forbidSkipsASlotThatComesWhileTheLastRunsAllowStartsItReplaceDeletesTheOld() throws Exception {
        BenchmarkSchedule forbid = schedule("*/10 * * * *", 1);
        Cluster cluster = new Cluster(forbid);
        cluster.at("2026-11-28T12:10:00Z");
        Decision skipped = cluster.at("2026-11-28T12:20:05Z");
        assertThat(skipped.creates()).isEmpty();
        assertThat(skipped.status().slots).extracting(s -> s.state).containsExactly("Running", "Skipped");
        assertThat(skipped.status().slots.get(1).message).contains("2026-11-28T12:10:00Z is still running").contains("Forbid");
        assertThat(skipped.events()).extracting(SchedulePlan.Event::reason).contains("SlotSkipped");
        assertThat(skipped.status().lastScheduleTime).isEqualTo("2026-11-28T12:20:00Z");
        assertThat(cluster.at("2026-11-28T12:21:00Z").events()).as("skipped once").extracting(SchedulePlan.Event::reason).doesNotContain("SlotSkipped");

        BenchmarkSchedule allow = schedule("*/10 * * * *", 1);
        allow.getSpec().concurrencyPolicy = ConcurrencyPolicy.Allow;
        Cluster allowing = new Cluster(allow);
        allowing.at("2026-11-28T12:10:00Z");
        assertThat(allowing.at("2026-11-28T12:20:05Z").creates()).extracting(SchedulePlan.Create::name).containsExactly("nightly-jetty12-2611281220");
        assertThat(allowing.status.activeCount).isEqualTo(2);

        BenchmarkSchedule replace = schedule("*/10 * * * *", 1);
        replace.getSpec().concurrencyPolicy = ConcurrencyPolicy.Replace;
        Cluster replacing = new Cluster(replace);
        replacing.at("2026-11-28T12:10:00Z");
        Decision replaced = replacing.at("2026-11-28T12:20:05Z");
        assertThat(replaced.deletes()).containsExactly("nightly-jetty12-2611281210");
        assertThat(replaced.creates()).extracting(SchedulePlan.Create::name).containsExactly("nightly-jetty12-2611281220");
        assertThat(replaced.status().slots).extracting(s -> s.state).containsExactly("Replaced", "Running");
        assertThat(replacing.at("2026-11-28T12:21:00Z").status().slots).as("the replaced slot stays told").extracting(s -> s.state)
                .containsExactly("Replaced", "Running");
    }

    @Test
    void onlyTheLatestDueSlotStartsAndOnePastTheStartingDeadlineIsMissed() throws Exception {
        Cluster away = new Cluster(schedule("*/10 * * * *", 1));
        Decision back = away.at("2026-11-28T12:55:00Z");   // the operator was down from 12:00:30
        assertThat(back.creates()).extracting(SchedulePlan.Create::slot).containsExactly(Instant.parse("2026-11-28T12:50:00Z"));
        assertThat(back.status().slots.get(0).message).contains("4 earlier slots").contains("not started");

        BenchmarkSchedule late = schedule("*/10 * * * *", 1);
        late.getSpec().startingDeadlineSeconds = 60L;
        Cluster deadline = new Cluster(late);
        Decision missed = deadline.at("2026-11-28T12:12:00Z");
        assertThat(missed.creates()).isEmpty();
        assertThat(missed.status().slots).singleElement().satisfies(s -> {
            assertThat(s.state).isEqualTo("Missed");
            assertThat(s.message).contains("120 s late").contains("startingDeadlineSeconds (60 s)");
        });
        assertThat(deadline.at("2026-11-28T12:20:30Z").creates()).as("the next slot, on time, starts").hasSize(1);
    }

    @Test
    void suspendedNothingStartsAndOnResumeTheLatestMissedSlotDoes() throws Exception {
        BenchmarkSchedule schedule = schedule("*/10 * * * *", 1);
        schedule.getSpec().suspend = true;
        Cluster cluster = new Cluster(schedule);
        Decision held = cluster.at("2026-11-28T12:35:00Z");
        assertThat(held.creates()).isEmpty();
        assertThat(held.status().nextScheduleTime).isNull();
        assertThat(RunConditions.find(held.status().conditions, "Ready").getReason()).isEqualTo("Suspended");
        schedule.getSpec().suspend = false;
        Cluster resumed = new Cluster(schedule);
        resumed.status = cluster.status;
        assertThat(resumed.at("2026-11-28T12:36:00Z").creates()).extracting(SchedulePlan.Create::slot).containsExactly(Instant.parse("2026-11-28T12:30:00Z"));
    }

    @Test
    void keepDeletesTheOldestFinishedSlotsWithTheirRuns() throws Exception {
        BenchmarkSchedule schedule = schedule("*/10 * * * *", 1);
        schedule.getSpec().keep = 2;
        Cluster cluster = new Cluster(schedule);
        List<String> deleted = new ArrayList<>();
        for (int slot = 1; slot <= 4; slot++) {
            Decision decision = cluster.at("2026-11-28T12:" + slot + "0:01Z");
            deleted.addAll(decision.deletes());
            cluster.finish(decision.creates().get(0).name(), ItemState.Succeeded);
        }
        deleted.addAll(cluster.at("2026-11-28T12:45:00Z").deletes());
        assertThat(deleted).containsExactly("nightly-jetty12-2611281210", "nightly-jetty12-2611281220");
        assertThat(cluster.status.slots).extracting(s -> s.time).containsExactly("2026-11-28T12:30:00Z", "2026-11-28T12:40:00Z");
    }

    @Test
    void staleWhenThreeSlotsCameWithoutFiguresOrPastStaleAfterAndToldOnce() throws Exception {
        Cluster cluster = new Cluster(schedule("*/10 * * * *", 1));
        for (int slot = 1; slot <= 2; slot++) {
            Decision decision = cluster.at("2026-11-28T12:" + slot + "0:01Z");
            cluster.finish(decision.creates().get(0).name(), ItemState.Failed);
        }
        assertThat(condition(cluster.at("2026-11-28T12:25:00Z").status(), "Stale")).isEqualTo("False");
        Decision third = cluster.at("2026-11-28T12:30:01Z");
        assertThat(condition(third.status(), "Stale")).isEqualTo("True");
        assertThat(RunConditions.find(third.status().conditions, "Stale").getMessage()).contains("the schedule's creation")
                .contains("the clients fell behind");
        assertThat(third.events()).extracting(SchedulePlan.Event::reason).contains("Stale");
        assertThat(cluster.at("2026-11-28T12:31:00Z").events()).extracting(SchedulePlan.Event::reason).doesNotContain("Stale");
        cluster.finish(third.creates().get(0).name(), ItemState.Succeeded);
        assertThat(condition(cluster.at("2026-11-28T12:32:00Z").status(), "Stale")).as("a success ends it").isEqualTo("False");

        BenchmarkSchedule daily = schedule("0 3 * * *", 1);
        daily.getSpec().staleAfter = "36h";
        Cluster timed = new Cluster(daily);
        assertThat(condition(timed.at("2026-11-29T23:00:00Z").status(), "Stale")).isEqualTo("False");
        timed.items.clear();
        assertThat(condition(timed.at(CREATED.plus(Duration.ofHours(36)).plusSeconds(1).toString()).status(), "Stale")).isEqualTo("True");
    }

    @Test
    void regressedTellsTheHistorysConfirmedChangesOnceAndSaysWhenThereIsNoHistory() throws Exception {
        Cluster cluster = new Cluster(schedule("*/10 * * * *", 1));
        assertThat(RunConditions.find(cluster.at("2026-11-28T12:05:00Z").status().conditions, "Regressed").getReason()).isEqualTo("HistoryOff");
        cluster.history = new History(true, 1, List.of("series abc (jetty12): p99Integral +20.0 %"));
        Decision told = cluster.at("2026-11-28T12:06:00Z");
        assertThat(condition(told.status(), "Regressed")).isEqualTo("True");
        assertThat(RunConditions.find(told.status().conditions, "Regressed").getMessage()).contains("p99Integral +20.0 %");
        assertThat(told.events()).extracting(SchedulePlan.Event::reason).containsExactly("Regressed");
        assertThat(cluster.at("2026-11-28T12:07:00Z").events()).isEmpty();
        cluster.history = new History(true, 1, List.of());
        assertThat(condition(cluster.at("2026-11-28T12:08:00Z").status(), "Regressed")).as("acknowledged").isEqualTo("False");
    }

    @Test
    void theScheduleIsReadInItsTimeZone() throws Exception {
        BenchmarkSchedule paris = schedule("0 3 * * *", 1);
        paris.getSpec().timeZone = "Europe/Paris";
        Cluster cluster = new Cluster(paris);
        assertThat(cluster.at("2026-11-28T12:30:00Z").status().nextScheduleTime).isEqualTo("2026-11-29T02:00:00Z");
        paris.getSpec().timeZone = "Europe/Pariss";
        assertThatThrownBy(() -> SchedulePlan.of(paris)).isInstanceOf(RunPlanner.InvalidPlanException.class)
                .hasMessageContaining("spec.timeZone").hasMessageContaining("Europe/Paris");
    }

    @Test
    void anInvalidScheduleOrTemplateIsRefusedNamingTheField() throws Exception {
        assertThatThrownBy(() -> SchedulePlan.of(schedule("61 * * * *", 1))).isInstanceOf(RunPlanner.InvalidPlanException.class)
                .hasMessageContaining("spec.schedule").hasMessageContaining("five fields");
        assertThatThrownBy(() -> SchedulePlan.of(schedule("0 0 31 2 *", 1))).hasMessageContaining("never comes");
        BenchmarkSchedule badRate = schedule("@daily", 1);
        badRate.getSpec().template.run.clients.rate = "0";
        assertThatThrownBy(() -> SchedulePlan.of(badRate)).hasMessageContaining("spec.template.run.clients.rate");
        BenchmarkSchedule both = schedule("@daily", 1);
        both.getSpec().template.suite = BenchmarkRunYaml.readSuite(Path.of("../examples/suites/local-two-servers.yaml")).getSpec();
        assertThatThrownBy(() -> SchedulePlan.of(both)).hasMessageContaining("spec.template").hasMessageContaining("one of run");
        BenchmarkSchedule longName = schedule("@hourly", 1);
        longName.getMetadata().setName("a-schedule-name-that-is-far-too-long");
        assertThatThrownBy(() -> SchedulePlan.of(longName)).hasMessageContaining("metadata.name");
    }

    @Test
    void aSuiteTemplateMakesSuitesWhoseRunsCarryTheSchedulesLabels() throws Exception {
        BenchmarkSchedule schedule = schedule("@daily", 2);
        schedule.getSpec().template.run = null;
        schedule.getSpec().template.suite = BenchmarkRunYaml.readSuite(Path.of("../examples/suites/local-two-servers.yaml")).getSpec();
        SchedulePlan plan = SchedulePlan.of(schedule);
        BenchmarkSuite suite = plan.suite(new SchedulePlan.Create(plan.itemName(Instant.parse("2026-11-29T00:00:00Z"), 2, 2),
                Instant.parse("2026-11-29T00:00:00Z"), 2, 2));
        assertThat(suite.getMetadata().getName()).isEqualTo("nightly-jetty12-2611290000-2");
        assertThat(SchedulePlan.slotOf(suite)).contains(Instant.parse("2026-11-29T00:00:00Z"));
        assertThat(SchedulePlan.repetitionOf(suite)).isEqualTo(2);
        var run = dev.pacer.engine.suite.SuitePlan.of(suite);
        var first = run.run(run.next(List.of()).orElseThrow());
        assertThat(first.getMetadata().getLabels()).containsEntry(SchedulePlan.LABEL_SCHEDULE, "nightly-jetty12")
                .containsEntry(SchedulePlan.LABEL_HISTORY, "true");
    }
}
