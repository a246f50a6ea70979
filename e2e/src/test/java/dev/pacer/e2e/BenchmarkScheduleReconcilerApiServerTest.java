package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSchedule;
import dev.pacer.api.BenchmarkScheduleStatus;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.schedule.SchedulePlan;
import dev.pacer.operator.schedule.BenchmarkScheduleReconciler;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link BenchmarkScheduleReconciler} alone, one reconcile at a time, on a real kube-apiserver with the committed CRDs
 * and a clock the test moves: the API server takes the schedule (its CRD embeds a run's and a suite's schema) and
 * refuses a bad one; a slot makes its runs one after another, owned by the schedule, labelled for the history; a slot
 * that comes while one runs is skipped (Forbid) and told in an event; the status and its conditions are written; a
 * schedule the schema cannot judge fails naming its field. The test finishes each run as the run reconciler would.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class BenchmarkScheduleReconcilerApiServerTest {
    static KubernetesClient client;
    private static final SteppedClock CLOCK = new SteppedClock(Instant.now());

    @BeforeAll
    static void applyCrds() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
    }

    private static BenchmarkSchedule example(String name) throws Exception {
        BenchmarkSchedule schedule = BenchmarkRunYaml.readSchedule(Processes.HOME.resolve("examples/schedules/nightly-jetty12.yaml"));
        schedule.getMetadata().setName(name);
        schedule.getMetadata().setNamespace("default");
        return schedule;
    }

    private static BenchmarkSchedule fetch(String name) {
        return client.resources(BenchmarkSchedule.class).inNamespace("default").withName(name).get();
    }

    private static BenchmarkSchedule reconcile(String name) {
        BenchmarkSchedule schedule = fetch(name);
        UpdateControl<BenchmarkSchedule> control = new BenchmarkScheduleReconciler(CLOCK).reconcile(schedule, new ApiServerContext<>(client, schedule));
        BenchmarkSchedule current = fetch(name);
        current.setStatus(control.getResource().orElseThrow().getStatus());
        client.resources(BenchmarkSchedule.class).resource(current).updateStatus();
        return fetch(name);
    }

    private static List<BenchmarkRun> runsOf(String schedule) {
        return client.resources(BenchmarkRun.class).inNamespace("default").withLabel(SchedulePlan.LABEL_SCHEDULE, schedule).list().getItems()
                .stream().sorted(Comparator.comparing(r -> r.getMetadata().getName())).toList();
    }

    private static void succeed(BenchmarkRun run) {
        BenchmarkRunStatus status = new BenchmarkRunStatus();
        status.phase = Phase.Succeeded;
        status.result = new RunResult();
        status.result.verdict = Verdict.Passed;
        run.setStatus(status);
        client.resources(BenchmarkRun.class).resource(run).updateStatus();
    }

    private static String condition(BenchmarkSchedule schedule, String type) {
        var condition = RunConditions.find(schedule.getStatus().conditions, type);
        return condition.getStatus() + "/" + condition.getReason();
    }

    @Test
    void aSlotMakesItsRunsOneAfterAnotherAndASlotThatComesWhileOneRunsIsSkipped() throws Exception {
        BenchmarkSchedule spec = example("every-ten");
        spec.getSpec().schedule = "*/10 * * * *";
        spec.getSpec().timeZone = "UTC";
        spec.getSpec().repetitions = 2;
        spec.getSpec().startingDeadlineSeconds = null;
        client.resources(BenchmarkSchedule.class).resource(spec).create();
        Instant created = Instant.parse(fetch("every-ten").getMetadata().getCreationTimestamp());
        Instant firstSlot = Instant.ofEpochSecond((created.getEpochSecond() / 600 + 1) * 600);
        CLOCK.set(firstSlot.minusSeconds(1));

        BenchmarkSchedule schedule = reconcile("every-ten");
        assertThat(runsOf("every-ten")).isEmpty();
        assertThat(schedule.getStatus().nextScheduleTime).isEqualTo(firstSlot.toString());
        assertThat(condition(schedule, "Ready")).isEqualTo("True/Scheduled");
        assertThat(condition(schedule, "Regressed")).isEqualTo("Unknown/HistoryOff");

        CLOCK.set(firstSlot.plusSeconds(2));
        schedule = reconcile("every-ten");
        reconcile("every-ten");
        List<BenchmarkRun> runs = runsOf("every-ten");
        assertThat(runs).as("one run, once").singleElement().satisfies(run -> {
            assertThat(run.getMetadata().getName()).endsWith("-1").startsWith("every-ten-");
            assertThat(run.getMetadata().getLabels()).containsEntry(SchedulePlan.LABEL_HISTORY, "true");
            assertThat(run.getMetadata().getAnnotations()).containsEntry(SchedulePlan.ANNOTATION_SLOT, firstSlot.toString());
            assertThat(run.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
                assertThat(o.getUid()).isEqualTo(fetch("every-ten").getMetadata().getUid());
                assertThat(o.getController()).isTrue();
            });
            assertThat(run.getSpec().server.image).isEqualTo("pacer/server-jetty12:0.1.0");
        });
        assertThat(schedule.getStatus().activeCount).isEqualTo(1);

        succeed(runs.get(0));
        CLOCK.advance(Duration.ofMinutes(3));
        reconcile("every-ten");
        assertThat(runsOf("every-ten")).extracting(r -> r.getMetadata().getName()).hasSize(2).last().asString().endsWith("-2");

        CLOCK.set(firstSlot.plus(Duration.ofMinutes(10)).plusSeconds(1));
        schedule = reconcile("every-ten");
        assertThat(runsOf("every-ten")).as("Forbid: no run of the next slot while the first runs").hasSize(2);
        assertThat(schedule.getStatus().slots).extracting(s -> s.state).containsExactly("Running", "Skipped");
        List<Event> events = client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "every-ten".equals(e.getInvolvedObject().getName())).toList();
        assertThat(events).extracting(Event::getReason).contains("SlotStarted", "SlotSkipped");
        assertThat(events).allSatisfy(e -> assertThat(e.getInvolvedObject().getKind()).isEqualTo(BenchmarkSchedule.KIND));

        succeed(runsOf("every-ten").get(1));
        schedule = reconcile("every-ten");
        BenchmarkScheduleStatus status = schedule.getStatus();
        assertThat(status.slots.get(0).state).isEqualTo("Succeeded");
        assertThat(status.lastSuccessfulTime).isEqualTo(firstSlot.toString());
        assertThat(status.activeCount).isZero();
        assertThat(condition(schedule, "Stale")).isEqualTo("False/Succeeding");

        spec = fetch("every-ten");
        spec.getSpec().template.run.clients.rate = "300";
        client.resources(BenchmarkSchedule.class).resource(spec).update();
        assertThat(fetch("every-ten").getSpec().template.run.clients.rate).as("a schedule's template may change").isEqualTo("300");
    }

    @Test
    void theApiServerRefusesABadScheduleAndTheOperatorOneOnlyItCanJudge() throws Exception {
        BenchmarkSchedule both = example("both");
        both.getSpec().template.suite = BenchmarkRunYaml.readSuite(Processes.HOME.resolve("examples/suites/local-two-servers.yaml")).getSpec();
        assertThatThrownBy(() -> client.resources(BenchmarkSchedule.class).resource(both).create()).isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("spec.template").hasMessageContaining("one of run");
        BenchmarkSchedule words = example("words");
        words.getSpec().schedule = "every day";
        assertThatThrownBy(() -> client.resources(BenchmarkSchedule.class).resource(words).create()).hasMessageContaining("spec.schedule");

        BenchmarkSchedule minute61 = example("minute61");
        minute61.getSpec().schedule = "61 * * * *";
        client.resources(BenchmarkSchedule.class).resource(minute61).create();
        BenchmarkSchedule judged = reconcile("minute61");
        assertThat(condition(judged, "Ready")).isEqualTo("False/InvalidSpec");
        assertThat(RunConditions.find(judged.getStatus().conditions, "Ready").getMessage()).contains("spec.schedule").contains("[0, 59]");
        assertThat(runsOf("minute61")).isEmpty();
    }
}
