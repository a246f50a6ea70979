package dev.pacer.engine.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Phase;
import dev.pacer.api.Verdict;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.preflight.Preflight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every transition of the run protocol by itself, on a fake clock with fake roles and agents (the model: Strimzi's
 * state-machine tests). Each test starts where the previous phase left the run and checks the phase, the
 * conditions, the actions and the notices.
 */
class RunProtocolTest {

    static String condition(BenchmarkRunStatus status, String type) {
        var c = RunConditions.find(status.conditions, type);
        return c == null ? null : c.getStatus() + "/" + c.getReason();
    }

    static String message(BenchmarkRunStatus status, String type) {
        return RunConditions.find(status.conditions, type).getMessage();
    }

    @Test
    void pendingCreatesTheServerAndStarts() {
        FakeRun run = new FakeRun();
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(d.actions()).containsExactly(new Action.CreateServer());
        assertThat(d.status().startTime).isEqualTo(FakeRun.T0.toString());
        assertThat(d.status().load).isEqualTo("2x500");
        assertThat(condition(d.status(), RunConditions.SPEC_VALID)).isEqualTo("True/Accepted");
        assertThat(d.notices()).extracting(Notice::reason).containsExactly("Starting");
    }

    @Test
    void aRunNoNodeCanTakeFailsBeforeAnyPodIsCreatedNamingTheField() {
        FakeRun run = new FakeRun("placement: {separateNodes: true}");
        run.nodes = Optional.of(List.of(new Preflight.NodeFacts("solo", null, "not read", 2000, "6.12", "amd64", Map.of(), true)));
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Failed);
        assertThat(d.actions()).doesNotContain(new Action.CreateServer());
        assertThat(condition(d.status(), RunConditions.PODS_READY)).isEqualTo("False/Unplaceable");
        assertThat(message(d.status(), RunConditions.READY)).contains("spec.placement.separateNodes", "[solo]", "add a node");
    }

    @Test
    void aRunWithTwoNodesOrNoNodeListedIsLeftToTheScheduler() {
        FakeRun unlisted = new FakeRun("placement: {separateNodes: true}");
        assertThat(unlisted.step().actions()).containsExactly(new Action.CreateServer());
        FakeRun none = new FakeRun("placement: {separateNodes: true}");
        none.nodes = Optional.of(List.of());
        assertThat(none.step().actions()).as("no node listed at all: nodes yet to come").containsExactly(new Action.CreateServer());
        FakeRun two = new FakeRun("placement: {separateNodes: true}");
        two.nodes = Optional.of(List.of(new Preflight.NodeFacts("a", null, "not read", 2000, "6.12", "amd64", Map.of(), true),
                new Preflight.NodeFacts("b", null, "not read", 2000, "6.12", "amd64", Map.of(), true)));
        assertThat(two.step().actions()).containsExactly(new Action.CreateServer());
    }

    @Test
    void startingWaitsForTheServerBeforeCreatingClients() {
        FakeRun run = new FakeRun();
        run.step();
        run.server = FakeRun.starting("fake-server");
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(d.actions()).isEmpty();
        assertThat(d.recheckAfter()).isEqualTo(RunProtocol.POLL);
        assertThat(condition(d.status(), RunConditions.PODS_READY)).isEqualTo("False/Waiting");
        assertThat(message(d.status(), RunConditions.PODS_READY)).contains("fake-server");
        assertThat(run.asked).doesNotContain("client-0");
    }

    @Test
    void aProblemHoldingAPodBackIsAConditionAndOneWarning() {
        FakeRun run = new FakeRun();
        run.step();
        run.server = new RoleObservation(RoleObservation.Presence.STARTING, "fake-server", null, null, null, null, "1",
                "ImagePullBackOff", "pod fake-server cannot pull pacer/nope:0");
        Decision first = run.step();
        assertThat(condition(first.status(), RunConditions.PODS_READY)).isEqualTo("False/ImagePullBackOff");
        assertThat(first.notices()).extracting(Notice::reason).containsExactly("ImagePullBackOff");
        assertThat(first.status().phase).isEqualTo(Phase.Starting);
        assertThat(run.step().notices()).as("the same problem again is no new event").isEmpty();
    }

    @Test
    void aRunWaitingForOthersIsQueuedWithoutPodsAndItsTimeoutStartsWhenItLeaves() {
        FakeRun run = new FakeRun();
        run.waiting = Optional.of("active runs [bench/other]");
        Decision first = run.step();
        assertThat(first.actions()).isEmpty();
        assertThat(first.status().phase).isEqualTo(Phase.Queued);
        assertThat(first.status().startTime).as("the queue is not the run's time").isNull();
        assertThat(condition(first.status(), RunConditions.READY)).isEqualTo("Unknown/Queued");
        assertThat(message(first.status(), RunConditions.READY)).contains("bench/other");
        assertThat(first.notices()).extracting(Notice::reason).containsExactly("Queued");
        run.advance(run.plan.timeout().plusMinutes(1));
        Decision still = run.step();
        assertThat(still.notices()).as("one event for the wait").isEmpty();
        assertThat(still.status().phase).as("no timeout in the queue").isEqualTo(Phase.Queued);
        run.waiting = Optional.empty();
        Decision started = run.step();
        assertThat(started.actions()).containsExactly(new Action.CreateServer());
        assertThat(started.status().phase).isEqualTo(Phase.Starting);
        assertThat(started.status().startTime).isEqualTo(run.now.toString());
    }

    @Test
    void aReadyServerGetsItsClientsCreated() {
        FakeRun run = new FakeRun();
        run.step();
        run.server = FakeRun.ready("fake-server", "10.0.0.1");
        Decision d = run.step();
        assertThat(d.actions()).containsExactly(new Action.CreateClients(List.of("client-0", "client-1")));
        run.clients.put("client-0", FakeRun.ready("fake-client-0", "10.0.0.2"));
        assertThat(run.step().actions()).as("only the missing one").containsExactly(new Action.CreateClients(List.of("client-1")));
    }

    @Test
    void aProbedServerGetsItsProbeOnItsNodeBeforeAnyClient() {
        FakeRun run = probedWithReadyServer("probe");
        Decision attach = run.step();
        assertThat(attach.actions()).containsExactly(new Action.CreateProbe("node-1", "10.0.0.1", 8080));
        assertThat(condition(attach.status(), RunConditions.PODS_READY)).isEqualTo("False/Waiting");
        run.probe = FakeRun.starting("fake-probe");
        assertThat(run.step().actions()).as("created once, then awaited").isEmpty();
        run.probe = FakeRun.ready("fake-probe", "10.0.0.9");
        assertThat(run.step().actions()).containsExactly(new Action.CreateClients(List.of("client-0", "client-1")));
    }

    @Test
    void aProbeThatFailsFailsTheRunWithItsReasonInAnyPhase() {
        FakeRun run = probedWithReadyServer("both");
        run.step();
        run.probe = FakeRun.failed("fake-probe", "ProbeExited", "kernel 5.10 lacks the tracepoint(s) sk_data_ready");
        Decision failed = run.step();
        assertThat(failed.status().phase).isEqualTo(Phase.Failed);
        assertThat(condition(failed.status(), RunConditions.PODS_READY)).isEqualTo("False/ProbeExited");
    }

    private static FakeRun probedWithReadyServer(String measure) {
        FakeRun run = new FakeRun("""
                server: {image: nginx, port: 8080, cpus: "1", measure: %s}
                """.formatted(measure));
        run.step();
        run.server = FakeRun.ready("fake-server", "10.0.0.1");
        return run;
    }

    @Test
    void aServerNobodyMeasuresNeedsNoAgentAndNoProbe() {
        FakeRun run = new FakeRun("""
                server: {image: nginx, port: 8080, cpus: "1", measure: none}
                """);
        run.step();
        run.allReady();
        run.infos.remove("server");   // nothing answers for it
        Decision arming = run.step();
        assertThat(arming.status().pods).extracting(p -> p.measuredBy).first().isEqualTo("none");
        assertThat(arming.actions()).hasSize(2).allMatch(a -> a instanceof Action.PostRun);
        assertThat(run.asked).doesNotContain("probe", "info:server");
    }

    @Test
    void everyRoleReadyRecordsThePodsThenArmsEveryClientBeforeAnyStartIsChosen() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        Decision arm = run.step();
        BenchmarkRunStatus s = arm.status();
        assertThat(s.pods).extracting(p -> p.role).containsExactly("server", "client-0", "client-1");
        assertThat(s.pods).extracting(p -> p.cpuset).containsExactly("1", "2", "3");
        assertThat(s.pods).extracting(p -> p.podIP).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3");
        assertThat(condition(s, RunConditions.PODS_READY)).isEqualTo("True/PodsReady");
        assertThat(condition(s, RunConditions.AGENTS_REACHABLE)).isEqualTo("True/AgentsAnswer");
        assertThat(s.startAtEpochMs).as("no start before every client is armed").isNull();
        assertThat(arm.actions()).hasSize(2).allSatisfy(a -> {
            Action.PostRun p = (Action.PostRun) a;
            assertThat(p.request().startAtEpochMs()).as("armed without a start").isZero();
            assertThat(p.request().problems()).isEmpty();
            assertThat(p.request().targetUrl()).isEqualTo("http://10.0.0.1:8080");
            assertThat(p.request().path()).isEqualTo("/plaintext");
            assertThat(p.request().method()).isEqualTo("GET");
            assertThat(p.request().requestTimeoutMs()).isEqualTo(30_000);
            assertThat(p.request().ratePerSecond()).isEqualTo(500);
        });
        assertThat(arm.notices()).extracting(Notice::reason).containsExactly("Arming");
        assertThat(arm.recheckAfter()).isEqualTo(Duration.ZERO);

        run.statuses.put("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.ARMED, 0, 0, 0)));
        run.statuses.put("client-1", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.ARMING, 0, 0, 0)));
        Decision oneArmed = run.step();
        assertThat(oneArmed.actions()).isEmpty();
        assertThat(oneArmed.status().startAtEpochMs).as("one client still connecting").isNull();
        assertThat(message(oneArmed.status(), RunConditions.READY)).isEqualTo("1 of 2 clients armed");

        run.clientsAre(LoadRunStatus.State.ARMED, 0);
        Decision scheduled = run.step();
        assertThat(scheduled.actions()).as("startAt is kept before anyone hears of it").isEmpty();
        assertThat(scheduled.recheckAfter()).isEqualTo(RunProtocol.NEXT_STEP);
        s = scheduled.status();
        // one lead rule: 1 s + 250 ms per client (+ 4 answers per client, none measured here), then the next period
        // boundary; the window holds whole periods
        long earliest = FakeRun.T0.toEpochMilli() + 1_500;
        assertThat(s.startAtEpochMs).isGreaterThanOrEqualTo(earliest).isLessThan(earliest + 1000);
        assertThat(s.startAtEpochMs % 1000).isZero();
        assertThat(s.startAt).isEqualTo(Instant.ofEpochMilli(s.startAtEpochMs).toString());
        assertThat(s.window.start).isEqualTo(Instant.ofEpochMilli(s.window.startEpochMs).toString());
        assertThat(s.window.startEpochMs).isEqualTo(s.startAtEpochMs + 5_000);
        assertThat(s.window.endEpochMs).isEqualTo(s.window.startEpochMs + 10_000);

        Decision post = run.step();
        assertThat(post.actions()).containsExactly(new Action.PostStart("client-0", s.startAtEpochMs),
                new Action.PostStart("client-1", s.startAtEpochMs));
        assertThat(post.recheckAfter()).isEqualTo(Duration.ZERO);
    }

    @Test
    void theLeadGrowsWithTheSlowestAnswerOfTheAgents() {
        FakeRun run = new FakeRun().armPosted();
        run.clientsAre(LoadRunStatus.State.ARMED, 0);
        run.statuses.put("client-1", run.statuses.get("client-1").took(Duration.ofMillis(300).toNanos()));
        BenchmarkRunStatus s = run.step().status();
        // 1 s + 2 × 250 ms + 2 clients × 4 answers × 300 ms
        long earliest = FakeRun.T0.toEpochMilli() + 1_500 + 2_400;
        assertThat(s.startAtEpochMs).isGreaterThanOrEqualTo(earliest).isLessThan(earliest + 1000);
    }

    @Test
    void aClientFailingToArmFailsTheRunWithItsReason() {
        FakeRun run = new FakeRun().armPosted();
        run.statuses.put("client-1", AgentAnswer.of(FakeRun.failedStatus("cannot connect to http://10.0.0.1:8080: ConnectException")));
        assertFailed(run.step(), RunConditions.FAILED, "ClientFailed", "client-1", "cannot connect");
    }

    @Test
    void aClientNeverArmedFailsTheRunAfterTheLimit() {
        FakeRun run = new FakeRun().armPosted();
        run.clientsAre(LoadRunStatus.State.ARMING, 0);
        run.advance(RunProtocol.ARM_LIMIT.minusSeconds(1));
        assertThat(run.step().status().phase).isEqualTo(Phase.Starting);
        run.advance(Duration.ofSeconds(1));
        assertFailed(run.step(), RunConditions.FAILED, "ClientNotArmed", "client-0", "client-1");
    }

    @Test
    void unreachableAgentInStartingIsAConditionNotAFailure() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        run.infos.put("client-1", AgentAnswer.unreachable("connect timed out"));
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(condition(d.status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("False/AgentUnreachable");
        assertThat(message(d.status(), RunConditions.AGENTS_REACHABLE)).contains("client-1", "connect timed out");
        assertThat(d.status().startAtEpochMs).isNull();
    }

    @Test
    void acceptedPostsStartTheWarmUp() {
        FakeRun run = new FakeRun().toWarmingUp();
        assertThat(run.status.phase).isEqualTo(Phase.WarmingUp);
        assertThat(condition(run.status, RunConditions.READY)).isEqualTo("Unknown/WarmingUp");
    }

    @Test
    void aConflictOnArmingMeansTheClientTookTheRunAlready() {
        FakeRun run = new FakeRun().armPosted();
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.posted("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.ARMING, 0, 0, 0)));
        answers.posted("client-1", AgentAnswer.refused(409, "this load generator already took a run"));
        run.outcomes = answers.build();
        run.clientsAre(LoadRunStatus.State.ARMING, 0);
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(d.actions()).isEmpty();
        assertThat(condition(d.status(), RunConditions.READY)).isEqualTo("Unknown/Arming");
    }

    @Test
    void aClientRefusingTheRunFailsItNamingTheClient() {
        FakeRun run = new FakeRun().armPosted();
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.posted("client-0", AgentAnswer.refused(400, "ratePerSecond must be > 0"));
        run.outcomes = answers.build();
        Decision d = run.step();
        assertFailed(d, RunConditions.FAILED, "ClientRefusedRun", "client-0", "ratePerSecond");
        assertThat(condition(d.status(), RunConditions.PASSED)).isEqualTo("False/ClientRefusedRun");
        assertThat(condition(d.status(), RunConditions.FINISHED)).isEqualTo("True/Failed");
        assertThat(RunConditions.find(d.status().conditions, RunConditions.COMPLETE)).isNull();
    }

    @Test
    void aPostThatGotNoAnswerIsRetried() {
        FakeRun run = new FakeRun().armPosted();
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.posted("client-0", AgentAnswer.unreachable("connection reset"));
        run.outcomes = answers.build();
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(condition(d.status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("False/AgentUnreachable");
        assertThat(run.step().actions()).as("posted again to the idle clients").hasSize(2);
    }

    @Test
    void aRestartedOrchestratorFindingEveryClientWaitingMovesOn() {
        FakeRun run = new FakeRun().startAtWritten();
        run.clientsAre(LoadRunStatus.State.WAITING, 0);   // they took it before the restart; no outcome this time
        Decision d = run.step();
        assertThat(d.actions()).isEmpty();
        assertThat(d.status().phase).isEqualTo(Phase.WarmingUp);
    }

    @Test
    void aStartThatHadPassedWhenItArrivedIsReplacedByALaterOne() {
        FakeRun run = new FakeRun().startAtWritten();
        long old = run.status.startAtEpochMs;
        run.step();
        run.at(old + 1_000);   // a machine so slow that the posts took longer than the lead
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.started("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WAITING, 0, 0, 0, old)));
        answers.started("client-1", AgentAnswer.refused(422, "startAt had passed by 900 ms when it arrived"));
        run.outcomes = answers.build();
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(d.notices()).extracting(Notice::reason).containsExactly("Rescheduled");
        assertThat(d.notices().getFirst().message()).contains("client-1", "passed");
        // the lead again, 2 s longer, plus twice how late the refused start was
        assertThat(d.status().startAtEpochMs).isGreaterThanOrEqualTo(old + 1_000 + 1_500 + 2_000 + 2_000);
        assertThat(d.status().window.startEpochMs).isEqualTo(d.status().startAtEpochMs + 5_000);
        assertThat(d.actions()).as("kept before it is posted").isEmpty();
        run.statuses.put("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WAITING, 0, 0, 0, old)));
        assertThat(run.step().actions()).as("the new start replaces the old one everywhere")
                .containsExactly(new Action.PostStart("client-0", d.status().startAtEpochMs), new Action.PostStart("client-1", d.status().startAtEpochMs));
    }

    @Test
    void aStartNotTakenByAllShortlyBeforeItIsReplacedForAll() {
        FakeRun run = new FakeRun().startAtWritten();
        long old = run.status.startAtEpochMs;
        run.statuses.put("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WAITING, 0, 0, 0, old)));
        run.at(old - 100);
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(d.notices()).extracting(Notice::reason).containsExactly("Rescheduled");
        assertThat(d.notices().getFirst().message()).contains("client-1");
        // the lead again, 2 s longer: a machine too slow for the first lead gets a longer one, not the same one again
        assertThat(d.status().startAtEpochMs).isGreaterThanOrEqualTo(old - 100 + 1_500 + 2_000);
    }

    @Test
    void aClientThatBeganAtAnotherStartFailsTheRun() {
        FakeRun run = new FakeRun().startAtWritten();
        long old = run.status.startAtEpochMs;
        run.statuses.put("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WARMUP, 500, 0, 0, old - 3_000)));
        assertFailed(run.step(), RunConditions.FAILED, "BarrierMissed", "client-0");
    }

    @Test
    void aStartRefusedBecauseTheLoadBeganFailsTheRun() {
        FakeRun run = new FakeRun().startAtWritten();
        run.step();
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.started("client-0", AgentAnswer.refused(409, "the load began already"));
        run.outcomes = answers.build();
        assertFailed(run.step(), RunConditions.FAILED, "BarrierMissed", "client-0", "began already");
    }

    @Test
    void aBarrierNobodyTookIsReplaced() {
        FakeRun run = new FakeRun().startAtWritten();
        long old = run.status.startAtEpochMs;
        run.at(old + 2_000);
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Starting);
        assertThat(d.status().startAtEpochMs).isGreaterThanOrEqualTo(old + 2_000 + 1_500 + 2_000);
        assertThat(d.notices()).extracting(Notice::reason).containsExactly("Rescheduled");
    }

    @Test
    void progressAddsTheClientsUpAndTheWindowDecidesThePhase() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.at(run.status.startAtEpochMs + 1_000);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.serverP99 = Optional.of(0.0015);
        Decision warm = run.step();
        assertThat(warm.status().phase).isEqualTo(Phase.WarmingUp);
        assertThat(warm.status().progress.offeredRate).isEqualTo(1000.0);
        assertThat(warm.status().progress.elapsedSeconds).isEqualTo(1.0);
        assertThat(warm.status().progress.totalSeconds).isEqualTo(15.0);
        assertThat(warm.status().progress.serverLastPeriodP99Micros).isEqualTo(1500);
        assertThat(warm.recheckAfter()).isEqualTo(RunProtocol.POLL);

        run.at(run.status.window.startEpochMs + 10);
        run.clientsAre(LoadRunStatus.State.MEASURING, 499.5);
        Decision measuring = run.step();
        assertThat(measuring.status().phase).isEqualTo(Phase.Measuring);
        assertThat(measuring.status().progress.achievedRate).isEqualTo(999.0);
        assertThat(measuring.notices()).extracting(Notice::reason).containsExactly("Measuring");
        assertThat(run.step().notices()).isEmpty();
    }

    /** The clients' schedules run one period (1 s) past the window: they are looked at just after, and collected then. */
    @Test
    void theClientsAreLookedAtAsTheirSchedulesEndAndCollectedOnceDone() {
        FakeRun run = new FakeRun().toWarmingUp();
        long end = run.status.window.endEpochMs;
        run.at(end - 1_000);
        run.clientsAre(LoadRunStatus.State.MEASURING, 500);
        assertThat(run.step().recheckAfter()).as("every POLL while measuring").isEqualTo(RunProtocol.POLL);
        run.at(end - 500);
        assertThat(run.step().recheckAfter()).as("the schedules end within a POLL").isEqualTo(Duration.ofMillis(1_600));
        run.at(end + 500);
        run.clientsAre(LoadRunStatus.State.MEASURING, 500);
        assertThat(run.step().recheckAfter()).as("at the schedules' end, 1 s after the window's, and 100 ms more")
                .isEqualTo(Duration.ofMillis(600));
        run.at(end + 1_100);
        run.clientsAre(LoadRunStatus.State.DONE, 500);
        Decision collect = run.step();
        assertThat(collect.status().phase).isEqualTo(Phase.Collecting);
        assertThat(collect.actions()).containsExactly(new Action.Collect(run.status.window.startEpochMs, end));
    }

    /** 500 req/s per client, maxSendLagP99 10 ms: more than 5 requests due and not sent is behind schedule. */
    @Test
    void aClientBehindItsScheduleAsTheWarmUpEndsMovesTheWindowOfEveryClientLater() {
        FakeRun run = new FakeRun().toWarmingUp();
        long plannedStart = run.status.window.startEpochMs;
        long plannedEnd = run.status.window.endEpochMs;
        run.at(plannedStart - 2_000);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        assertThat(run.step().recheckAfter()).as("the next look just before the window").isEqualTo(Duration.ofMillis(1_700));
        run.at(plannedStart - 300);
        run.clientLate("client-1", LoadRunStatus.State.WARMUP, 600);   // 1.2 s of its requests
        Decision moved = run.step();
        assertThat(moved.status().window.startEpochMs).isEqualTo(plannedStart + 1_000);
        assertThat(moved.status().window.endEpochMs).as("the same duration").isEqualTo(plannedEnd + 1_000);
        assertThat(moved.status().warmupExtendedSeconds).isEqualTo(1.0);
        assertThat(moved.status().phase).isEqualTo(Phase.WarmingUp);
        assertThat(moved.actions()).containsExactly(new Action.MoveWindow("client-0", plannedStart + 1_000),
                new Action.MoveWindow("client-1", plannedStart + 1_000));
        assertThat(moved.notices()).singleElement().satisfies(n -> {
            assertThat(n.reason()).isEqualTo("WarmupExtended");
            assertThat(n.message()).contains("client-1 1200 ms behind schedule");
        });
        assertThat(moved.recheckAfter()).as("looked at again just before the new start").isEqualTo(Duration.ofMillis(1_000));

        run.at(plannedStart + 700);   // still behind at the next look: one more period
        run.clientLate("client-1", LoadRunStatus.State.WARMUP, 100);
        Decision again = run.step();
        assertThat(again.status().window.startEpochMs).isEqualTo(plannedStart + 2_000);
        assertThat(again.status().warmupExtendedSeconds).isEqualTo(2.0);

        run.at(plannedStart + 1_700);   // caught up
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        Decision onSchedule = run.step();
        assertThat(onSchedule.actions()).isEmpty();
        assertThat(onSchedule.status().window.startEpochMs).isEqualTo(plannedStart + 2_000);
    }

    @Test
    void aBacklogEarlyInTheWarmUpOrOnceTheWindowWasJudgedMovesNothing() {
        FakeRun run = new FakeRun().toWarmingUp();
        long plannedStart = run.status.window.startEpochMs;
        run.at(plannedStart - 1_000);   // a second before the window: time to catch up
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 1_000);
        assertThat(run.step().actions()).isEmpty();
        run.at(plannedStart - 300);   // the look: on schedule
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        assertThat(run.step().actions()).isEmpty();
        run.at(plannedStart + 1_000);   // a period into the window: the window's own, which the analysis judges
        run.clientLate("client-0", LoadRunStatus.State.MEASURING, 1_000);
        Decision late = run.step();
        assertThat(late.actions()).isEmpty();
        assertThat(late.status().window.startEpochMs).isEqualTo(plannedStart);
        assertThat(late.status().warmupExtendedSeconds).isNull();
        assertThat(late.status().behindAtWindowStart).isNull();
    }

    @Test
    void pastSpecWarmupMoreABacklogThatDoesNotShrinkStartsTheWindowAndTheRunIsInvalidSayingWhy() {
        FakeRun run = new FakeRun().toWarmingUp();
        long plannedStart = run.status.window.startEpochMs;
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        for (int i = 1; i <= 5; i++) {   // spec.warmup 5 s: five periods more, whatever the backlog does
            run.at(run.status.window.startEpochMs - 300);
            run.clientLate("client-0", LoadRunStatus.State.WARMUP, 10_000);
            assertThat(run.step().status().window.startEpochMs).isEqualTo(plannedStart + i * 1_000L);
        }
        assertThat(run.status.warmupBacklogMs).as("10 000 requests at 500 req/s").isEqualTo(20_000L);
        run.at(run.status.window.startEpochMs - 300);
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 10_000);   // not catching up
        Decision capped = run.step();
        assertThat(capped.actions()).isEmpty();
        assertThat(capped.status().window.startEpochMs).isEqualTo(plannedStart + 5_000);
        assertThat(capped.status().warmupExtendedSeconds).isEqualTo(5.0);
        assertThat(capped.notices()).singleElement().satisfies(n -> {
            assertThat(n.reason()).isEqualTo("WarmupNotExtended");
            assertThat(n.warning()).isTrue();
            assertThat(n.message()).contains("client-0 20000 ms", "did not shrink", "20000 ms then", "Invalid");
        });
        assertThat(capped.status().behindAtWindowStart).contains("client-0 20000 ms behind schedule as the window started");

        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        BenchmarkRunStatus judged = run.step().status();
        assertThat(judged.result.verdict).as("histograms that would pass: the backlog alone makes it Invalid").isEqualTo(Verdict.Invalid);
        assertThat(judged.result.reasons).anySatisfy(r -> assertThat(r).contains("client-0 20000 ms behind schedule",
                "the window measured the clients catching up", "spec.rampUp"));
        assertThat(condition(judged, RunConditions.PASSED)).isEqualTo("False/VerdictInvalid");
    }

    @Test
    void pastSpecWarmupMoreTheWarmUpGrowsWhileTheBacklogShrinksAndTheWindowMeasuresNoneOfIt() {
        FakeRun run = new FakeRun().toWarmingUp();
        long plannedStart = run.status.window.startEpochMs;
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        long[] backlogs = {10_000, 10_000, 10_000, 10_000, 10_000, 9_000, 8_000, 7_000};   // catching up after 5 s more
        for (int i = 1; i <= backlogs.length; i++) {
            run.at(run.status.window.startEpochMs - 300);
            run.clientLate("client-0", LoadRunStatus.State.WARMUP, backlogs[i - 1]);
            assertThat(run.step().status().window.startEpochMs).isEqualTo(plannedStart + i * 1_000L);
        }
        assertThat(run.status.warmupExtendedSeconds).as("beyond spec.warmup (5 s)").isEqualTo(8.0);
        run.at(run.status.window.startEpochMs - 300);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);   // on its schedule
        assertThat(run.step().actions()).isEmpty();
        assertThat(run.status.behindAtWindowStart).isNull();

        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        assertThat(run.step().status().result.verdict).isEqualTo(Verdict.Passed);
    }

    @Test
    void aWindowThatWouldEndPastSpecTimeoutIsNotMovedAndTheRunIsInvalid() {
        FakeRun run = new FakeRun("timeout: 20s").toWarmingUp();   // a moved window must end 2 periods and 60 s before it
        long plannedStart = run.status.window.startEpochMs;
        run.at(plannedStart - 300);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.clientLate("client-1", LoadRunStatus.State.WARMUP, 1_000);
        Decision notMoved = run.step();
        assertThat(notMoved.actions()).isEmpty();
        assertThat(notMoved.status().window.startEpochMs).isEqualTo(plannedStart);
        assertThat(notMoved.status().behindAtWindowStart).contains("client-1 2000 ms", "spec.timeout");
    }

    @Test
    void theLookJustBeforeTheWindowJudgesItOnceAndALaterOneBeforeTheStartFindingTheClientsCaughtUpClearsTheVerdict() {
        FakeRun run = new FakeRun("timeout: 20s").toWarmingUp();   // no room to move the window
        long start = run.status.window.startEpochMs;
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.at(start - 300);
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 1_000);
        assertThat(run.step().status().behindAtWindowStart).contains("client-0 2000 ms");
        assertThat(run.status.windowJudgedEpochMs).isEqualTo(start);
        run.at(start - 100);   // another look before the start: caught up
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        assertThat(run.step().notices()).as("an event undoes the refusal's").extracting(Notice::reason).containsExactly("WarmupCaughtUp");
        assertThat(run.status.behindAtWindowStart).as("on schedule as the window started").isNull();
        run.at(start - 50);
        assertThat(run.step().notices()).as("once").isEmpty();
        run.at(start + 100);   // a backlog after the start is the window's to measure, not a warm-up's
        run.clientLate("client-0", LoadRunStatus.State.MEASURING, 1_000);
        Decision inWindow = run.step();
        assertThat(inWindow.notices()).extracting(Notice::reason).doesNotContain("WarmupNotExtended", "WarmupExtended");
        assertThat(inWindow.status().behindAtWindowStart).isNull();

        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        assertThat(run.step().status().result.verdict).isEqualTo(Verdict.Passed);
    }

    @Test
    void aLookBeforeTheJudgingOneChangesNothingAndALateFirstLookStillMovesTheWindow() {
        FakeRun run = new FakeRun().toWarmingUp();
        long start = run.status.window.startEpochMs;
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.at(start - 500);   // earlier than the look scheduled at start - 300
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 1_000);
        Decision early = run.step();
        assertThat(early.actions()).isEmpty();
        assertThat(early.status().window.startEpochMs).isEqualTo(start);
        assertThat(early.status().windowJudgedEpochMs).isNull();
        run.at(start + 600);   // the first look since, late (its scheduled step did not come), within the first period
        run.clientLate("client-0", LoadRunStatus.State.MEASURING, 1_000);
        Decision late = run.step();
        assertThat(late.status().window.startEpochMs).as("the first boundary a period away").isEqualTo(start + 2_000);
        assertThat(late.actions()).hasSize(2).allSatisfy(a -> assertThat(a).isInstanceOf(Action.MoveWindow.class));
    }

    @Test
    void aFirstLookPastTheWindowsFirstPeriodCannotMoveItAndABacklogThenMakesTheRunInvalid() {
        FakeRun run = new FakeRun().toWarmingUp();
        long start = run.status.window.startEpochMs;
        run.at(start + 1_700);   // no step since the warm-up (an agent did not answer at the look)
        run.clientsAre(LoadRunStatus.State.MEASURING, 0);
        run.clientLate("client-1", LoadRunStatus.State.MEASURING, 1_000);
        Decision late = run.step();
        assertThat(late.actions()).isEmpty();
        assertThat(late.status().behindAtWindowStart).contains("client-1 2000 ms", "1700 ms after its start", "too late to move it");

        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        BenchmarkRunStatus judged = run.step().status();
        assertThat(judged.result.verdict).isEqualTo(Verdict.Invalid);
        assertThat(judged.result.reasons.getFirst()).contains("client-1 2000 ms behind schedule at the first look");
    }

    /** The judging look comes at most half a period before the start: a move puts the new start at least a period away. */
    @Test
    void withShortPeriodsTheStepRightAfterAMoveIsBeforeTheNewWindowsLookAndMovesNothing() {
        FakeRun run = new FakeRun("samplePeriod: 200ms").toWarmingUp();   // the judging look 100 ms before a start
        long start = run.status.window.startEpochMs;
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.at(start - 100);
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 100);   // 200 ms behind
        assertThat(run.step().status().window.startEpochMs).isEqualTo(start + 200);
        run.at(start - 95);   // the driver steps again at once, with the same backlog
        Decision again = run.step();
        assertThat(again.actions()).isEmpty();
        assertThat(again.status().window.startEpochMs).isEqualTo(start + 200);
        assertThat(again.status().windowJudgedEpochMs).as("the new window not judged yet").isEqualTo(start);
        run.at(start + 100);   // the new window's own look
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 50);
        assertThat(run.step().status().window.startEpochMs).as("still behind, catching up: moved again").isEqualTo(start + 400);
    }

    @Test
    void aClientThatDidNotTakeTheMovedWindowFailsTheRun() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.at(run.status.window.startEpochMs - 300);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 600);
        run.step();
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.windowMoved("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WARMUP, 500, 0, 0)));
        answers.windowMoved("client-1", AgentAnswer.refused(409, "the window ended"));
        run.outcomes = answers.build();
        assertFailed(run.step(), RunConditions.READY, "WindowNotMoved", "client-1", "the window ended");
    }

    /**
     * Clients that read the move after its start (starved of CPU, they answer late) all refuse it and keep the window
     * judged: they agree on it, so the run goes on there, and its verdict is Invalid, the clients behind as it started.
     */
    @Test
    void aMoveEveryClientRefusedKeepsTheWindowTheyHoldAndTheRunIsInvalid() {
        FakeRun run = new FakeRun().toWarmingUp();
        long start = run.status.window.startEpochMs;
        long end = run.status.window.endEpochMs;
        run.at(start - 300);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.clientLate("client-0", LoadRunStatus.State.WARMUP, 3_000);
        assertThat(run.step().status().window.startEpochMs).isEqualTo(start + 1_000);
        Outcomes.Builder answers = new Outcomes.Builder();
        answers.windowMoved("client-0", AgentAnswer.refused(409, "the start had passed"));
        answers.windowMoved("client-1", AgentAnswer.refused(409, "the start had passed"));
        run.outcomes = answers.build();
        run.at(start + 1_300);
        run.clientsAre(LoadRunStatus.State.MEASURING, 0);
        run.clientLate("client-0", LoadRunStatus.State.MEASURING, 2_000);
        Decision stayed = run.step();
        assertThat(stayed.status().phase).isEqualTo(Phase.Measuring);
        assertThat(stayed.status().window.startEpochMs).isEqualTo(start);
        assertThat(stayed.status().window.endEpochMs).isEqualTo(end);
        assertThat(stayed.status().warmupExtendedSeconds).isNull();
        assertThat(stayed.actions()).as("the move not retried").isEmpty();
        assertThat(stayed.notices()).extracting(Notice::reason).contains("WarmupNotExtended");
        assertThat(stayed.status().behindAtWindowStart).contains("client-0, client-1 behind schedule", "after that start had passed",
                "the window stayed at " + Instant.ofEpochMilli(start));

        run.outcomes = Outcomes.NONE;
        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        BenchmarkRunStatus judged = run.step().status();
        assertThat(judged.result.verdict).isEqualTo(Verdict.Invalid);
        assertThat(judged.result.reasons.getFirst()).contains("reached them after that start had passed");
    }

    @Test
    void aMovedWindowWhoseStatusWasLostIsTheWindowTheClientsHoldAndAClientNotToldOfItIsToldAgain() {
        FakeRun run = new FakeRun().toWarmingUp();
        long plannedStart = run.status.window.startEpochMs;
        long plannedEnd = run.status.window.endEpochMs;
        run.at(plannedStart - 2_000);
        run.clientsAre(LoadRunStatus.State.WARMUP, 0);
        run.step();
        BenchmarkRunStatus keptBeforeTheMove = run.keptCopy();
        run.at(plannedStart - 300);
        run.clientHolds("client-0", LoadRunStatus.State.WARMUP, plannedStart);
        run.clientHolds("client-1", LoadRunStatus.State.WARMUP, plannedStart, 600);   // 1.2 s behind
        Decision moved = run.step();
        long movedStart = moved.status().window.startEpochMs;
        assertThat(movedStart).isEqualTo(plannedStart + 1_000);
        Outcomes.Builder answers = new Outcomes.Builder();
        moved.actions().forEach(a -> answers.windowMoved(((Action.MoveWindow) a).client(),
                AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WARMUP, 500, 0, 0))));
        run.outcomes = answers.build();   // the moves answered, the clients' reports read before them
        assertThat(run.step().actions()).as("a client whose move was answered is not told again").isEmpty();
        // the clients read again: they hold the new start
        run.clientHolds("client-0", LoadRunStatus.State.WARMUP, movedStart);
        run.clientHolds("client-1", LoadRunStatus.State.WARMUP, movedStart, 550);
        assertThat(run.step().actions()).as("clients that took the move are not told again").isEmpty();

        run.status = keptBeforeTheMove;   // the move reached client-0 only, and its status was lost
        run.at(plannedStart - 250);
        run.clientHolds("client-1", LoadRunStatus.State.WARMUP, plannedStart, 550);   // still behind
        Decision retold = run.step();
        assertThat(retold.status().window.startEpochMs).isEqualTo(movedStart);
        assertThat(retold.status().window.endEpochMs).isEqualTo(plannedEnd + 1_000);
        assertThat(retold.status().warmupExtendedSeconds).isEqualTo(1.0);
        assertThat(retold.status().warmupBacklogMs).as("the backlog reported now").isEqualTo(1_100);
        assertThat(retold.actions()).as("not moved twice, and the client not told is told").containsExactly(
                new Action.MoveWindow("client-1", movedStart));
        assertThat(retold.notices()).extracting(Notice::reason).containsExactly("WindowFromClients");

        run.clientHolds("client-1", LoadRunStatus.State.WARMUP, movedStart, 550);
        run.at(plannedStart - 200);
        Decision agreed = run.step();
        assertThat(agreed.actions()).isEmpty();
        assertThat(agreed.status().window.startEpochMs).isEqualTo(movedStart);

        run.at(movedStart - 300);   // the new start is judged at its own look
        run.clientHolds("client-0", LoadRunStatus.State.WARMUP, movedStart);
        run.clientHolds("client-1", LoadRunStatus.State.WARMUP, movedStart);
        assertThat(run.step().actions()).isEmpty();
        assertThat(run.status.windowJudgedEpochMs).isEqualTo(movedStart);
    }

    @Test
    void aClientThatCanNoLongerBeToldOfTheWindowTheOthersHoldFailsTheRun() {
        FakeRun run = new FakeRun().toWarmingUp();
        long plannedStart = run.status.window.startEpochMs;
        long movedStart = plannedStart + 1_000;
        run.at(movedStart + 100);   // client-1 is measuring its own window already
        run.clientHolds("client-0", LoadRunStatus.State.MEASURING, movedStart);
        run.clientHolds("client-1", LoadRunStatus.State.MEASURING, plannedStart);
        assertFailed(run.step(), RunConditions.READY, "WindowNotMoved", "client-1");
    }

    @Test
    void collectionWaitsForEveryClientAndAQuarterPeriodAfterTheWindow() {
        FakeRun run = new FakeRun().toWarmingUp();
        long end = run.status.window.endEpochMs;
        run.at(end + 100);
        run.clientsAre(LoadRunStatus.State.DONE, 500);
        run.statuses.put("client-1", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.MEASURING, 500, 500, 0)));
        assertThat(run.step().status().phase).as("a client still draining").isEqualTo(Phase.Measuring);
        run.clientsAre(LoadRunStatus.State.DONE, 500);
        assertThat(run.step().status().phase).as("before a quarter period").isEqualTo(Phase.Measuring);
        run.at(end + 250);
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Collecting);
        assertThat(d.actions()).containsExactly(new Action.Collect(run.status.window.startEpochMs, end));
    }

    @Test
    void aFailedClientFailsTheRunNamingIt() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.at(run.status.startAtEpochMs + 500);
        run.statuses.put("client-1", AgentAnswer.of(FakeRun.failedStatus("cannot connect to http://10.0.0.1:8080")));
        Decision d = run.step();
        assertFailed(d, RunConditions.FAILED, "ClientFailed", "client-1", "fake-client-1", "cannot connect");
    }

    @Test
    void aClientThatNeverStartsSendingFailsTheRun() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.at(run.status.startAtEpochMs + 4_000);
        assertThat(run.step().status().phase).as("still within the grace").isEqualTo(Phase.WarmingUp);
        run.statuses.put("client-0", AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WARMUP, 500, 0, 0)));
        run.at(run.status.startAtEpochMs + 5_001);
        Decision d = run.step();
        assertFailed(d, RunConditions.FAILED, "ClientNotStarted", "client-1", "5 s after startAt");
    }

    @Test
    void anAgentUnreachableForAWhileDoesNotStopTheRun() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.at(run.status.window.startEpochMs + 1_000);
        run.statuses.put("client-0", AgentAnswer.unreachable("connect timed out"));
        Decision lost = run.step();
        assertThat(lost.status().phase).isEqualTo(Phase.WarmingUp);
        assertThat(condition(lost.status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("False/AgentUnreachable");
        run.advance(Duration.ofSeconds(4));
        run.clientsAre(LoadRunStatus.State.MEASURING, 500);
        Decision back = run.step();
        assertThat(back.status().phase).isEqualTo(Phase.Measuring);
        assertThat(condition(back.status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("True/AgentsAnswer");
    }

    @Test
    void anAgentSilentDuringTheLoadIsToleratedUntilTheWindowEndsThenForTheLimit() {
        FakeRun run = new FakeRun().toWarmingUp();
        long end = run.status.window.endEpochMs;
        run.at(run.status.window.startEpochMs + 1_000);
        run.statuses.put("client-0", AgentAnswer.unreachable("pod bench/fake-client-0:9090: connect timed out"));
        assertThat(run.step().status().phase).isEqualTo(Phase.WarmingUp);
        run.at(end - 1);
        assertThat(run.step().status().phase).as("silent for most of the window, still tolerated").isIn(Phase.WarmingUp, Phase.Measuring);
        run.at(end + RunProtocol.AGENT_UNREACHABLE_LIMIT.toMillis() - 1);
        Decision waiting = run.step();
        assertThat(waiting.status().phase).as("the limit counts from the window's end").isNotEqualTo(Phase.Failed);
        assertThat(condition(waiting.status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("False/AgentUnreachable");
        run.at(end + RunProtocol.AGENT_UNREACHABLE_LIMIT.toMillis());
        Decision d = run.step();
        assertFailed(d, RunConditions.AGENTS_REACHABLE, "AgentUnreachable", "client-0", "fake-client-0:9090: connect timed out",
                "no answer for " + (end + RunProtocol.AGENT_UNREACHABLE_LIMIT.toMillis() - run.status.window.startEpochMs - 1_000) / 1000 + " s");
    }

    @Test
    void anAgentSilentWhileStartingFailsTheRunAfterTheLimit() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        run.infos.put("client-1", AgentAnswer.unreachable("connection refused"));
        assertThat(run.step().status().phase).isEqualTo(Phase.Starting);
        run.advance(RunProtocol.AGENT_UNREACHABLE_LIMIT.minusMillis(1));
        assertThat(run.step().status().phase).isEqualTo(Phase.Starting);
        run.advance(Duration.ofMillis(1));
        assertFailed(run.step(), RunConditions.AGENTS_REACHABLE, "AgentUnreachable", "client-1", "connection refused");
    }

    @Test
    void anAgentBackBeforeTheLimitStartsTheCountAgain() {
        FakeRun run = new FakeRun().toWarmingUp();
        long end = run.status.window.endEpochMs;
        run.at(end + 500);
        run.statuses.put("client-0", AgentAnswer.unreachable("connect timed out"));
        run.step();
        run.at(end + 500 + RunProtocol.AGENT_UNREACHABLE_LIMIT.toMillis() - 1_000);
        run.clientsAre(LoadRunStatus.State.MEASURING, 500);
        assertThat(condition(run.step().status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("True/AgentsAnswer");
        run.advance(Duration.ofSeconds(1));
        run.statuses.put("client-0", AgentAnswer.unreachable("connect timed out"));
        Decision d = run.step();
        assertThat(d.status().phase).as("silent again, for a second only").isEqualTo(Phase.Measuring);
    }

    @Test
    void theTimeoutNamesTheAgentThatDidNotAnswer() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.at(run.status.window.startEpochMs + 1_000);
        run.clientsAre(LoadRunStatus.State.MEASURING, 500);
        run.statuses.put("client-1", AgentAnswer.unreachable("no route to host"));
        run.step();
        run.at(Instant.parse(run.status.startTime).plus(run.plan.timeout()).toEpochMilli());
        assertFailed(run.step(), RunConditions.FAILED, "Timeout", "spec.timeout 600 s", "an agent did not answer: client-1: no route to host");
    }

    @Test
    void anAgentGoneForGoodFailsTheRunWhenItsPodIsGone() {
        FakeRun run = new FakeRun().toWarmingUp();
        run.statuses.put("client-0", AgentAnswer.unreachable("no route to host"));
        run.clients.put("client-0", RoleObservation.absent("fake-client-0"));
        Decision d = run.step();
        assertFailed(d, RunConditions.PODS_READY, "PodDeleted", "fake-client-0");
    }

    @Test
    void collectedHistogramsAreJudgedAndPublished() {
        FakeRun run = toCollecting(new FakeRun());
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        Decision d = run.step();
        BenchmarkRunStatus s = d.status();
        assertThat(s.phase).isEqualTo(Phase.Succeeded);
        assertThat(s.result.verdict).isEqualTo(Verdict.Passed);
        assertThat(s.result.server.samples).isEqualTo(10);
        assertThat(s.result.server.periodP99Micros).hasSize(10).containsOnly(1L);
        assertThat(s.completionTime).isEqualTo(run.now.toString());
        assertThat(condition(s, RunConditions.COMPLETE)).isEqualTo("True/VerdictPassed");
        assertThat(condition(s, RunConditions.PASSED)).isEqualTo("True/VerdictPassed");
        assertThat(condition(s, RunConditions.FINISHED)).isEqualTo("True/Succeeded");
        assertThat(condition(s, RunConditions.READY)).isEqualTo("True/VerdictPassed");
        assertThat(RunConditions.find(s.conditions, RunConditions.FAILED)).isNull();
        Action.Publish publish = (Action.Publish) d.actions().getFirst();
        assertThat(publish.document().result()).as("result.json and the status hold one result").isSameAs(s.result);
        assertThat(publish.document().periods()).hasSize(10);
        assertThat(publish.files()).containsKey("server.hlog");
        assertThat(d.recheckAfter()).isEqualTo(Duration.ZERO);
    }

    @Test
    void aVerdictOtherThanPassedIsCompleteButNotPassed() {
        FakeRun run = toCollecting(new FakeRun("criteria: {maxP99: 1ms}"));
        run.serverNanos = 2_000_000;
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        BenchmarkRunStatus s = run.step().status();
        assertThat(s.result.verdict).isEqualTo(Verdict.Failed);
        assertThat(condition(s, RunConditions.COMPLETE)).isEqualTo("True/VerdictFailed");
        assertThat(condition(s, RunConditions.PASSED)).isEqualTo("False/VerdictFailed");
        assertThat(message(s, RunConditions.PASSED)).contains("criteria.maxP99");
    }

    @Test
    void pinningAskedForAndNotObtainedFailsTheRunAtOnceNamingTheNodePolicyAndTheFix() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        run.server = FakeRun.pinnedReady("fake-server", "10.0.0.1", 1);
        run.infos.put("server", AgentAnswer.of(FakeRun.info("server", "0-1")));
        Decision started = run.step();
        assertFailed(started, RunConditions.CPUS_PINNED, "NotPinned", "fake-server", "0-1", "node node-1",
                "cpuManagerPolicy: static", "spec.placement.pinCpus: false");
        assertThat(started.status().pods.getFirst().pinned).isFalse();
        assertThat(started.actions()).as("no client armed, no load").isEmpty();
    }

    @Test
    void aClientWhoseClockIsOffMoreThanAQuarterOfTheSendLagLimitFailsTheRunBeforeAnyLoad() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        run.clockOffsetsMicros.put("client-1", 20_000L);   // 20 ms ahead; maxSendLagP99 10 ms: 2.5 ms allowed
        Decision started = run.step();
        assertFailed(started, RunConditions.CLOCKS_SYNCHRONIZED, "ClockOffset", "fake-client-1", "node-1", "20.0 ms ahead", "2.5 ms allowed");
        assertThat(started.actions()).as("no client armed, no load").isEmpty();
        assertThat(started.status().pods).extracting(p -> p.clockOffsetMicros).containsExactly(0L, 0L, 20_000L);
    }

    @Test
    void everyAgentsClockOffsetIsInTheStatusBeforeTheClientsAreArmed() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        run.clockOffsetsMicros.put("client-0", -1_500L);
        Decision started = run.step();
        assertThat(started.status().phase).isEqualTo(Phase.Starting);
        assertThat(started.status().pods).extracting(p -> p.clockOffsetMicros).containsExactly(0L, -1_500L, 0L);
        assertThat(started.status().pods).extracting(p -> p.clockRoundTripMicros).containsOnly(200L);
        assertThat(condition(started.status(), RunConditions.CLOCKS_SYNCHRONIZED)).isEqualTo("True/Synchronized");
        assertThat(message(started.status(), RunConditions.CLOCKS_SYNCHRONIZED)).contains("largest offset 1.500 ms");
        assertThat(run.asked).contains("clock:server", "clock:client-0", "clock:client-1");
    }

    /** From the step that recorded the pods to the judged result, every agent answering. */
    private static BenchmarkRunStatus startedToJudged(FakeRun run) {
        run.clientsAre(LoadRunStatus.State.ARMED, 0);
        run.step();                                   // startAt chosen
        run.clientsAre(LoadRunStatus.State.WAITING, 0);
        run.step();
        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        return run.step().status();
    }

    @Test
    void aPinnedServerTheProbeMeasuresFromAnotherPodIsAWarningNotInvalid() {
        FakeRun run = probedWithReadyServer("probe");
        run.server = FakeRun.pinnedReady("fake-server", "10.0.0.1", 1);
        run.probe = FakeRun.ready("fake-probe", "10.0.0.9");
        run.allReady();
        run.server = FakeRun.pinnedReady("fake-server", "10.0.0.1", 1);
        run.infos.put("server", AgentAnswer.of(new AgentInfo("server", "0.1.0", "probe", null, "probe-pod", null,
                null, null, null, "6.18", null, 0L, 1000L, List.of("service", "residence"), Map.of())));
        Decision started = run.step();
        assertThat(started.notices()).extracting(Notice::reason).doesNotContain("NotPinned");
        assertThat(started.status().pods.getFirst().measuredBy).isEqualTo("probe");
        BenchmarkRunStatus s = startedToJudged(run);
        assertThat(s.result.verdict).isEqualTo(Verdict.Passed);
        assertThat(s.result.warnings).anySatisfy(w -> assertThat(w).contains("fake-server", "pinning was not verified"));
    }

    @Test
    void theStatusKeepsTheDigestEachPodRan() {
        FakeRun run = toCollecting(new FakeRun());
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected().placedAt(Map.of(
                "server", new RunCollector.Placed("pacer/server-jetty12:0.1.0", "docker.io/pacer/server-jetty12@sha256:0f1e", "node-1"),
                "client-0", new RunCollector.Placed("pacer/loadgen:0.1.0", "docker.io/pacer/loadgen@sha256:77aa", "node-2"))))));
        BenchmarkRunStatus s = run.step().status();
        assertThat(s.pods).filteredOn(p -> p.role.equals("server")).singleElement()
                .satisfies(p -> assertThat(p.imageId).isEqualTo("docker.io/pacer/server-jetty12@sha256:0f1e"));
        assertThat(s.pods).filteredOn(p -> p.role.equals("client-0")).singleElement()
                .satisfies(p -> assertThat(p.image).isEqualTo("pacer/loadgen:0.1.0"));
        assertThat(s.pods).filteredOn(p -> p.role.equals("client-1")).singleElement()
                .satisfies(p -> assertThat(p.imageId).as("the platform did not say").isNull());
    }

    @Test
    void aFailedCollectionFailsTheRun() {
        FakeRun run = toCollecting(new FakeRun());
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.failed("server answered 500")));
        Decision d = run.step();
        assertFailed(d, RunConditions.FAILED, "CollectionFailed", "server answered 500");
    }

    @Test
    void aCollectionNoAgentAnsweredIsAskedAgainThenFailsTheRunAfterTheLimit() {
        FakeRun run = toCollecting(new FakeRun());
        run.outcomes = new Outcomes(Map.of(), Optional.of(
                Outcomes.Collection.failed(new ConnectException("pod bench/fake-server:9090: connection refused"))));
        Decision d = run.step();
        assertThat(d.status().phase).isEqualTo(Phase.Collecting);
        assertThat(condition(d.status(), RunConditions.AGENTS_REACHABLE)).isEqualTo("False/AgentUnreachable");
        assertThat(d.recheckAfter()).isEqualTo(RunProtocol.POLL);
        run.outcomes = Outcomes.NONE;
        run.advance(RunProtocol.POLL);
        assertThat(run.step().actions()).as("asked again").singleElement().isInstanceOf(Action.Collect.class);
        run.advance(RunProtocol.AGENT_UNREACHABLE_LIMIT);
        run.outcomes = new Outcomes(Map.of(), Optional.of(
                Outcomes.Collection.failed(new HttpTimeoutException("pod bench/fake-server:9090: request timed out"))));
        assertFailed(run.step(), RunConditions.AGENTS_REACHABLE, "AgentUnreachable", "collecting", "fake-server:9090: request timed out");
    }

    @Test
    void collectingAgainAfterARestartAsksForTheCollection() {
        FakeRun run = toCollecting(new FakeRun());
        Decision d = run.step();
        assertThat(d.actions()).singleElement().isInstanceOf(Action.Collect.class);
    }

    @ParameterizedTest
    @EnumSource(value = Phase.class, names = {"Starting", "WarmingUp", "Measuring", "Collecting"})
    void theTimeoutFailsEveryUnfinishedPhase(Phase phase) {
        FakeRun run = inPhase(phase);
        run.at(Instant.parse(run.status.startTime).plus(run.plan.timeout()).toEpochMilli());
        Decision d = run.step();
        assertFailed(d, RunConditions.FAILED, "Timeout", "spec.timeout 600 s", "phase " + phase);
    }

    @ParameterizedTest
    @EnumSource(value = Phase.class, names = {"Starting", "WarmingUp", "Measuring", "Collecting"})
    void theServerGoneFailsEveryUnfinishedPhase(Phase phase) {
        FakeRun run = inPhase(phase);
        run.server = RoleObservation.absent("fake-server");
        Decision d = run.step();
        assertFailed(d, RunConditions.PODS_READY, "PodDeleted", "fake-server");
    }

    @ParameterizedTest
    @EnumSource(value = Phase.class, names = {"Starting", "WarmingUp", "Measuring", "Collecting"})
    void aClientThatExitedFailsEveryUnfinishedPhase(Phase phase) {
        FakeRun run = inPhase(phase);
        run.clients.put("client-1", FakeRun.failed("fake-client-1", "ProcessExited", "client-1 exited with code 137"));
        Decision d = run.step();
        assertFailed(d, RunConditions.PODS_READY, "ProcessExited", "client-1 exited with code 137");
    }

    @Test
    void rolesNotReadyInTimeFailTheRun() {
        FakeRun run = new FakeRun();
        run.step();
        run.server = FakeRun.starting("fake-server");
        run.advance(RunProtocol.READY_LIMIT.plusSeconds(1));
        Decision d = run.step();
        assertFailed(d, RunConditions.FAILED, "NotReady", "fake-server", "5 min");
    }

    @Test
    void aRejectedSpecFailsNamingEveryField() {
        Decision d = RunProtocol.rejected(new BenchmarkRunStatus(), List.of(new FieldProblem("spec.duration", "must be > 0"),
                new FieldProblem("spec.clients.count", "must be >= 1")), FakeRun.T0);
        assertFailed(d, RunConditions.SPEC_VALID, "InvalidSpec", "spec.duration", "spec.clients.count");
        assertThat(condition(d.status(), RunConditions.PASSED)).isEqualTo("False/InvalidSpec");
    }

    @Test
    void aFinishedRunIsCleanedUpOnceAsThePolicySays() {
        FakeRun run = succeeded(new FakeRun());
        Decision d = run.step();
        assertThat(d.actions()).singleElement().isInstanceOf(Action.CleanUp.class);
        assertThat(d.status().podsDeleted).isTrue();
        assertThat(d.recheckAfter()).isNull();
        assertThat(run.step().actions()).as("pods still terminating are not deleted twice").isEmpty();
    }

    @Test
    void anInvalidRunFreesItsPodsOnSuccessPolicySoThatTheNextRunGetsItsCpus() {
        for (Verdict verdict : new Verdict[] {Verdict.Invalid, Verdict.Failed}) {
            FakeRun run = succeeded(new FakeRun());
            run.status.result.verdict = verdict;   // carried out, whatever the verdict
            assertThat(run.step().actions()).as(verdict.name()).containsExactly(new Action.CleanUp("spec.cleanup.pods: OnSuccess"));
        }
    }

    @Test
    void neverKeepsThePodsRunningAndAFailedRunKeepsThemStoppedOnSuccessPolicy() {
        FakeRun never = succeeded(new FakeRun("cleanup: {pods: Never}"));
        assertThat(never.step().actions()).isEmpty();
        FakeRun failed = new FakeRun();
        failed.step();
        failed.server = RoleObservation.absent("fake-server");
        failed.step();
        failed.server = FakeRun.ready("fake-server", "10.0.0.1");
        Decision kept = failed.step();
        assertThat(kept.actions()).as("OnSuccess keeps a failed run's pods for a look, stopped so that they free their CPUs")
                .containsExactly(new Action.StopRoles("spec.cleanup.pods: OnSuccess keeps a failed run's pods"));
        assertThat(kept.status().podsStopped).isTrue();
        assertThat(kept.status().podsDeleted).isNull();
        assertThat(kept.notices()).anyMatch(n -> n.reason().equals("PodsStopped"));
        assertThat(failed.step().actions()).as("stopped once").isEmpty();
    }

    @Test
    void theRunIsDeletedAfterItsTimeToLive() {
        FakeRun run = succeeded(new FakeRun("cleanup: {ttlSecondsAfterFinished: 60}"));
        Decision first = run.step();
        assertThat(first.recheckAfter()).isEqualTo(Duration.ofSeconds(60).plusMillis(100));
        run.advance(Duration.ofSeconds(60));
        assertThat(run.step().actions()).singleElement().isInstanceOf(Action.ExpireRun.class);
    }

    @Test
    void aRejectedRunIsDeletedAfterItsTimeToLiveToo() {
        BenchmarkRunStatus status = RunProtocol.rejected(new BenchmarkRunStatus(), List.of(new FieldProblem("spec.duration", "bad")),
                FakeRun.T0).status();
        Decision waiting = RunProtocol.finishedWithoutPlan(status, Duration.ofSeconds(2), FakeRun.T0.plusSeconds(1));
        assertThat(waiting.actions()).isEmpty();
        assertThat(waiting.recheckAfter()).isEqualTo(Duration.ofMillis(1100));
        assertThat(RunProtocol.finishedWithoutPlan(status, Duration.ofSeconds(2), FakeRun.T0.plusSeconds(2)).actions())
                .singleElement().isInstanceOf(Action.ExpireRun.class);
        assertThat(RunProtocol.finishedWithoutPlan(status, null, FakeRun.T0.plusSeconds(9)).recheckAfter()).isNull();
    }

    @Test
    void aPodThePlatformRefusesFailsTheRunAtOnce() {
        FakeRun run = new FakeRun();
        RecordingEffects effects = new RecordingEffects(run);
        effects.refuse = "the API server refused Pod fake-server (422): spec.containers[0].resources.limits.memory: Invalid value: \"lots\"";
        Decision d = RunDriver.drive(run.plan, run.status, run, effects, Clock.fixed(run.now, ZoneOffset.UTC));
        assertFailed(d, RunConditions.PODS_READY, "PodRejected", "fake-server", "limits.memory");
        assertThat(effects.done).containsExactly("createServer");
    }

    @Test
    void theDriverArmsEveryClientThenChoosesTheStartOnceTheyAreArmed() {
        FakeRun run = new FakeRun();
        run.step();
        run.allReady();
        RecordingEffects effects = new RecordingEffects(run);
        Clock clock = Clock.fixed(run.now, ZoneOffset.UTC);
        Decision arming = RunDriver.drive(run.plan, run.status, run, effects, clock);
        assertThat(effects.done).containsExactly("arm client-0", "arm client-1");
        assertThat(arming.status().startAtEpochMs).as("not before their run statuses say armed").isNull();
        assertThat(arming.recheckAfter()).isEqualTo(RunProtocol.NEXT_STEP);
        Decision scheduled = RunDriver.drive(run.plan, arming.status(), run, effects, clock);
        assertThat(effects.done).as("armed once").containsExactly("arm client-0", "arm client-1");
        assertThat(scheduled.status().startAtEpochMs).as("chosen once both said they are armed").isNotNull();
        assertThat(scheduled.actions()).isEmpty();
    }

    @Test
    void theDriverPostsTheStartAndMovesOnInOneStep() {
        FakeRun run = new FakeRun().startAtWritten();
        RecordingEffects effects = new RecordingEffects(run);
        Decision d = RunDriver.drive(run.plan, run.status, run, effects, Clock.fixed(run.now, ZoneOffset.UTC));
        assertThat(effects.done).containsExactly("start client-0", "start client-1");
        assertThat(d.status().phase).isEqualTo(Phase.WarmingUp);
        assertThat(effects.notices).contains("LoadScheduled");
    }

    @Test
    void theDriverCollectsAndJudgesInOneStepAndCleansUpOnlyOnceTheFinalStatusIsKept() {
        FakeRun run = toCollecting(new FakeRun());
        RecordingEffects effects = new RecordingEffects(run);
        Clock clock = Clock.fixed(run.now, ZoneOffset.UTC);
        Decision d = RunDriver.drive(run.plan, run.status, run, effects, clock);
        assertThat(effects.done).containsExactly("collect", "publish");
        assertThat(d.status().phase).isEqualTo(Phase.Succeeded);
        // where the platform kept the results is in the status it keeps
        assertThat(d.status().artifacts.path).isEqualTo("bench/" + run.plan.runName());
        assertThat(d.status().artifacts.files).isPositive();
        assertThat(d.recheckAfter()).isEqualTo(Duration.ZERO);
        RunDriver.drive(run.plan, d.status(), run, effects, clock);
        assertThat(effects.done).containsExactly("collect", "publish", "cleanUp");
    }

    /** The run failed: the condition has the reason, and the Failed condition's message names what it should. */
    static void assertFailed(Decision d, String type, String reason, String... inMessage) {
        assertThat(d.status().phase).isEqualTo(Phase.Failed);
        String expected = (RunConditions.FAILED.equals(type) ? "True/" : "False/") + reason;
        assertThat(condition(d.status(), type)).isEqualTo(expected);
        assertThat(condition(d.status(), RunConditions.FAILED)).isEqualTo("True/" + reason);
        assertThat(message(d.status(), RunConditions.FAILED)).contains(inMessage);
        assertThat(condition(d.status(), RunConditions.PASSED)).isEqualTo("False/" + reason);
        assertThat(condition(d.status(), RunConditions.FINISHED)).isEqualTo("True/Failed");
    }

    /** The run in a phase, with every role ready and answering. */
    static FakeRun inPhase(Phase phase) {
        FakeRun run = new FakeRun();
        if (phase == Phase.Starting) {
            run.step();
            run.allReady();
            return run;
        }
        run.toWarmingUp();
        if (phase == Phase.Measuring) {
            run.at(run.status.window.startEpochMs + 1);
            run.clientsAre(LoadRunStatus.State.MEASURING, 500);
            run.step();
        } else if (phase == Phase.Collecting) {
            toCollecting(run);
        }
        assertThat(run.status.phase).isEqualTo(phase);
        return run;
    }

    static FakeRun toCollecting(FakeRun run) {
        if (run.status.phase == null) {
            run.toWarmingUp();
        }
        run.at(run.status.window.endEpochMs + 500);
        run.clientsAre(LoadRunStatus.State.DONE, 500);
        run.step();
        assertThat(run.status.phase).isEqualTo(Phase.Collecting);
        return run;
    }

    static FakeRun succeeded(FakeRun run) {
        toCollecting(run);
        run.outcomes = new Outcomes(Map.of(), Optional.of(Outcomes.Collection.of(run.collected())));
        run.step();
        assertThat(run.status.phase).isEqualTo(Phase.Succeeded);
        return run;
    }

    /** Effects that answer as a healthy platform and remember what was done. */
    static final class RecordingEffects implements RunDriver.Effects {
        final FakeRun run;
        final List<String> done = new ArrayList<>();
        final List<String> notices = new ArrayList<>();

        RecordingEffects(FakeRun run) {
            this.run = run;
        }

        String refuse;

        @Override
        public Optional<String> createServer() {
            done.add("createServer");
            return Optional.ofNullable(refuse);
        }

        @Override
        public Optional<String> createProbe(Action.CreateProbe create) {
            done.add("createProbe " + create.serverNode() + " " + create.serverAddress() + ":" + create.serverPort());
            return Optional.empty();
        }

        @Override
        public Optional<String> createClients(List<String> names) {
            done.add("createClients " + names);
            return Optional.empty();
        }

        @Override
        public AgentAnswer<LoadRunStatus> postRun(Action.PostRun post) {
            done.add("arm " + post.client());
            run.statuses.put(post.client(), AgentAnswer.of(FakeRun.status(LoadRunStatus.State.ARMED, 0, 0, 0)));
            return AgentAnswer.of(FakeRun.status(LoadRunStatus.State.ARMING, 0, 0, 0));
        }

        @Override
        public AgentAnswer<LoadRunStatus> postStart(Action.PostStart start) {
            done.add("start " + start.client());
            return AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WAITING, 0, 0, 0, start.startAtEpochMs()));
        }

        @Override
        public AgentAnswer<LoadRunStatus> moveWindow(Action.MoveWindow move) {
            done.add("moveWindow " + move.client());
            return AgentAnswer.of(FakeRun.status(LoadRunStatus.State.WARMUP, 500, 0, 0));
        }

        @Override
        public Outcomes.Collection collect(Action.Collect collect) {
            done.add("collect");
            return Outcomes.Collection.of(run.collected());
        }

        @Override
        public Optional<BenchmarkRunStatus.Artifacts> publish(Action.Publish publish) {
            done.add("publish");
            var kept = new BenchmarkRunStatus.Artifacts();
            kept.path = "bench/" + publish.document().run();
            kept.files = publish.files().size();
            return Optional.of(kept);
        }

        @Override
        public void cleanUp(Action.CleanUp cleanUp) {
            done.add("cleanUp");
        }

        @Override
        public void stopRoles(Action.StopRoles stop) {
            done.add("stopRoles");
        }

        @Override
        public void expireRun(Action.ExpireRun expire) {
            done.add("expireRun");
        }

        @Override
        public void notify(Notice notice) {
            notices.add(notice.reason());
        }
    }
}
