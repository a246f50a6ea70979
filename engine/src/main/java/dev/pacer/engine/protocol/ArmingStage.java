package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RoleObservation.Presence.FAILED;
import static dev.pacer.engine.protocol.RunConditions.UNKNOWN;
import static dev.pacer.engine.protocol.RunProtocol.ARM_LIMIT;
import static dev.pacer.engine.protocol.RunProtocol.BARRIER_MARGIN;
import static dev.pacer.engine.protocol.RunProtocol.NEXT_STEP;
import static dev.pacer.engine.protocol.RunProtocol.POLL;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.plan.RunPlan;

/**
 * Starting, once every role is ready: every client armed (the run posted without a start), then one {@code startAt}
 * chosen with a lead sized from the agents' answer times, kept, then posted; a start a client finds passed, or not
 * taken by all shortly before it, replaced by a later one; a client that began at another start fails the run.
 */
final class ArmingStage extends ProtocolStep {
    ArmingStage(ProtocolStep shared) {
        super(shared);
    }

    /**
     * The clients arm (connect and prepare) before any start is chosen; once all are armed, {@code startAt} is
     * chosen with a lead sized from the agents' measured answer times, kept, then posted. A start a client finds
     * passed, or one too close to post safely, is replaced by a later one: no client begins behind its schedule.
     */
    Decision armAndStart(RunPlan plan, RoleObservation server, Observations seen, Outcomes outcomes) {
        for (Map.Entry<String, AgentAnswer<LoadRunStatus>> post : outcomes.posts().entrySet()) {
            AgentAnswer<LoadRunStatus> answer = post.getValue();
            if (answer.refused() && answer.statusCode() != AgentContract.RUN_ALREADY_TAKEN) {
                return fail(RunConditions.READY, "ClientRefusedRun", post.getKey() + " refused the run: " + answer.error());
            }
            if (answer.unreachable()) {
                return unreachable(post.getKey(), answer.error(), NEXT_STEP);
            }
        }
        if (!outcomes.posts().isEmpty()) {
            condition(RunConditions.READY, UNKNOWN, "Arming", "arming " + outcomes.posts().size() + " of " + plan.clients().size() + " clients");
            return decide(NEXT_STEP);   // they connect now: their run statuses say when they are armed
        }
        if (!outcomes.starts().isEmpty()) {
            Optional<Decision> refused = startRefused(plan, outcomes.starts());
            if (refused.isPresent()) {
                return refused.get();
            }
        }
        List<String> idle = new ArrayList<>();
        List<String> arming = new ArrayList<>();
        List<String> toStart = new ArrayList<>();
        long slowestAnswerNanos = 0;
        for (RunPlan.ClientRole role : plan.clients()) {
            AgentAnswer<LoadRunStatus> answer = outcomes.starts().containsKey(role.name()) ? outcomes.starts().get(role.name()) : seen.runStatus(role.name());
            if (!answer.answered()) {
                return unreachable(role.name(), answer.error(), POLL);
            }
            slowestAnswerNanos = Math.max(slowestAnswerNanos, answer.answerNanos());
            LoadRunStatus runStatus = answer.value();
            boolean tookThisStart = status.startAtEpochMs != null && status.startAtEpochMs.equals(runStatus.startAtEpochMs());
            switch (runStatus.state()) {
                case IDLE -> idle.add(role.name());
                case ARMING -> arming.add(role.name());
                case FAILED -> {
                    return fail(RunConditions.READY, "ClientFailed", role.name() + " (" + seen.client(role.name()).name()
                            + ") failed before the load: " + runStatus.failure());
                }
                case ARMED -> toStart.add(role.name());
                case WAITING -> {
                    if (!tookThisStart) {
                        toStart.add(role.name());   // a start not replaced yet: the new one replaces it
                    }
                }
                case WARMUP, MEASURING, DONE -> {
                    if (!tookThisStart) {
                        return fail(RunConditions.READY, "BarrierMissed", role.name() + " began its load at "
                                + Instant.ofEpochMilli(runStatus.startAtEpochMs()) + ", not at the run's startAt: the run cannot start together");
                    }
                }
            }
        }
        if (!idle.isEmpty()) {
            String target = target(plan, server);
            for (String client : idle) {
                actions.add(new Action.PostRun(client, plan.runRequest(plan.client(client), target, 0)));
            }
            notices.add(Notice.normal("Arming", "arming " + idle.size() + " client" + (idle.size() == 1 ? "" : "s")
                    + " (connecting to " + target + ")"));
            return decide(Duration.ZERO);
        }
        if (!arming.isEmpty()) {
            var podsReady = RunConditions.find(status.conditions, RunConditions.PODS_READY);
            Instant readySince = Instant.parse(podsReady.getLastTransitionTime());
            if (!now.isBefore(readySince.plus(ARM_LIMIT))) {
                return fail(RunConditions.READY, "ClientNotArmed", "clients " + arming + " were not armed (connected to "
                        + target(plan, server) + ") " + ARM_LIMIT.toSeconds() + " s after every pod was ready");
            }
            condition(RunConditions.READY, UNKNOWN, "Arming", (plan.clients().size() - arming.size()) + " of "
                    + plan.clients().size() + " clients armed");
            return decide(NEXT_STEP);
        }
        Duration slowestAnswer = Duration.ofNanos(slowestAnswerNanos);
        if (status.startAtEpochMs == null) {
            return scheduleStart(plan, plan.startLead(slowestAnswer));
        }
        if (toStart.isEmpty()) {
            return loadScheduled(plan, server);
        }
        if (now.toEpochMilli() > status.startAtEpochMs - BARRIER_MARGIN.toMillis()) {
            notices.add(Notice.normal("Rescheduled", toStart + " had not taken startAt " + Instant.ofEpochMilli(status.startAtEpochMs)
                    + " " + BARRIER_MARGIN.toMillis() + " ms before it; a later one is set"));
            return scheduleStart(plan, plan.startLeadAgain(slowestAnswer, Duration.ZERO));
        }
        for (String client : toStart) {
            actions.add(new Action.PostStart(client, status.startAtEpochMs));
        }
        return decide(Duration.ZERO);
    }

    /** The answers to the posted start: a start that had passed is replaced by a later one; a client that began elsewhere fails the run. */
    private Optional<Decision> startRefused(RunPlan plan, Map<String, AgentAnswer<LoadRunStatus>> starts) {
        long slowestAnswerNanos = starts.values().stream().mapToLong(AgentAnswer::answerNanos).max().orElse(0);
        for (Map.Entry<String, AgentAnswer<LoadRunStatus>> start : starts.entrySet()) {
            AgentAnswer<LoadRunStatus> answer = start.getValue();
            if (answer.unreachable()) {
                return Optional.of(unreachable(start.getKey(), answer.error(), NEXT_STEP));
            }
            if (answer.refused() && answer.statusCode() == AgentContract.RUN_START_PASSED) {
                Duration late = Duration.ofMillis(Math.max(0, now.toEpochMilli() - status.startAtEpochMs));
                notices.add(Notice.normal("Rescheduled", start.getKey() + " found startAt " + Instant.ofEpochMilli(status.startAtEpochMs)
                        + " passed on arrival (" + answer.error() + "); a later one is set"));
                return Optional.of(scheduleStart(plan, plan.startLeadAgain(Duration.ofNanos(slowestAnswerNanos), late)));
            }
            if (answer.refused() && answer.statusCode() == AgentContract.RUN_ALREADY_TAKEN) {
                return Optional.of(fail(RunConditions.READY, "BarrierMissed", start.getKey() + " refused startAt "
                        + Instant.ofEpochMilli(status.startAtEpochMs) + ": " + answer.error() + "; the run cannot start together"));
            }
            if (answer.refused()) {
                return Optional.of(fail(RunConditions.READY, "ClientRefusedRun", start.getKey() + " refused the start: " + answer.error()));
            }
        }
        return Optional.empty();
    }

    /**
     * Chooses {@code startAt}: {@code lead} from now (the plan's, for a first start or one chosen again), on a period
     * boundary. It is kept before anyone is told of it.
     */
    private Decision scheduleStart(RunPlan plan, Duration lead) {
        long startAt = plan.startAtEpochMs(now.toEpochMilli(), lead);
        long windowStart = startAt + plan.warmup().toMillis();
        status.startAtEpochMs = startAt;
        status.startAt = Instant.ofEpochMilli(startAt).toString();
        status.window = new RunResult.Window(windowStart, windowStart + plan.duration().toMillis());
        condition(RunConditions.READY, UNKNOWN, "Starting", "every client armed; the load starts at " + status.startAt);
        return decide(NEXT_STEP);   // startAt is kept before anyone is told of it
    }

    private Decision loadScheduled(RunPlan plan, RoleObservation server) {
        status.phase = Phase.WarmingUp;
        condition(RunConditions.READY, UNKNOWN, "WarmingUp", "load starts at " + Instant.ofEpochMilli(status.startAtEpochMs));
        notices.add(Notice.normal("LoadScheduled", plan.load() + " req/s against " + target(plan, server) + " from " + Instant.ofEpochMilli(status.startAtEpochMs) + "; measured "
                + Instant.ofEpochMilli(status.window.startEpochMs) + " to " + Instant.ofEpochMilli(status.window.endEpochMs)));
        return decide(POLL);
    }
}
