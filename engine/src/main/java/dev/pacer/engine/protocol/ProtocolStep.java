package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RoleObservation.Presence.ABSENT;
import static dev.pacer.engine.protocol.RoleObservation.Presence.FAILED;
import static dev.pacer.engine.protocol.RunConditions.FALSE;
import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunProtocol.AGENT_UNREACHABLE_LIMIT;
import static dev.pacer.engine.protocol.RunProtocol.POLL;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.contract.HostPort;
import dev.pacer.engine.plan.RunPlan;

/**
 * One step of the run protocol: the status it changes, the actions and notices it gathers, and what every stage does
 * alike (fail the run, wait for roles, an agent that does not answer, a role lost during the run). Each phase is a
 * stage of its own ({@link PendingStage}, {@link StartingStage}, {@link ArmingStage}, {@link RunningStage},
 * {@link CollectingStage}, {@link FinishedStage}); {@link RunProtocol#step} chooses it.
 */
class ProtocolStep {
    final BenchmarkRunStatus status;
    final Instant now;
    final List<Action> actions;
    final List<Notice> notices;

    ProtocolStep(BenchmarkRunStatus status, Instant now) {
        this.status = status;
        this.now = now;
        this.actions = new ArrayList<>();
        this.notices = new ArrayList<>();
    }

    /** Another stage of the same step: the same status, actions and notices. */
    ProtocolStep(ProtocolStep shared) {
        this.status = shared.status;
        this.now = shared.now;
        this.actions = shared.actions;
        this.notices = shared.notices;
    }

    Decision fail(String type, String reason, String message) {
        status.phase = Phase.Failed;
        status.completionTime = now.toString();
        condition(type, FALSE, reason, message);
        if (!RunConditions.READY.equals(type)) {
            condition(RunConditions.READY, FALSE, reason, message);
        }
        condition(RunConditions.FINISHED, TRUE, "Failed", message);
        condition(RunConditions.FAILED, TRUE, reason, message);
        condition(RunConditions.PASSED, FALSE, reason, "the run could not be completed: " + message);
        notices.add(Notice.warning(reason, message));
        return decide(Duration.ZERO);   // the final step cleans up
    }

    /** WarmingUp, Measuring, Collecting: every role must still be there and well. */
    Optional<Decision> failOnLostRoles(RunPlan plan, Observations seen) {
        List<RoleObservation> roles = new ArrayList<>();
        roles.add(seen.server());
        if (plan.server().measure().probe()) {
            roles.add(seen.probe());
        }
        plan.clients().forEach(c -> roles.add(seen.client(c.name())));
        for (RoleObservation role : roles) {
            if (role.is(ABSENT)) {
                return Optional.of(fail(RunConditions.PODS_READY, "PodDeleted", role.name() + " was deleted during the run"));
            }
            if (role.is(FAILED)) {
                return Optional.of(fail(RunConditions.PODS_READY, role.reason(), role.message()));
            }
        }
        return Optional.empty();
    }

    Decision waitFor(List<RoleObservation> roles, String waiting) {
        Optional<RoleObservation> problem = roles.stream().filter(RoleObservation::hasProblem).findFirst();
        if (problem.isPresent()) {
            if (condition(RunConditions.PODS_READY, FALSE, problem.get().reason(), problem.get().message())) {
                notices.add(Notice.warning(problem.get().reason(), problem.get().message()));
            }
        } else {
            condition(RunConditions.PODS_READY, FALSE, "Waiting", waiting);
        }
        return decide(POLL);
    }

    /**
     * An agent that did not answer: a condition and a warning, and the step again later; once the run needs it
     * and it has been silent for {@link RunProtocol#AGENT_UNREACHABLE_LIMIT}, the run fails naming it.
     */
    Decision unreachable(String role, String error, Duration retry) {
        if (condition(RunConditions.AGENTS_REACHABLE, FALSE, "AgentUnreachable", role + ": " + error)) {
            notices.add(Notice.warning("AgentUnreachable", role + ": " + error));
        }
        Instant silentSince = Instant.parse(RunConditions.find(status.conditions, RunConditions.AGENTS_REACHABLE).getLastTransitionTime());
        boolean loadUnderway = (status.phase == Phase.WarmingUp || status.phase == Phase.Measuring)
                && status.window != null && now.toEpochMilli() < status.window.endEpochMs;
        if (loadUnderway) {
            return decide(retry);
        }
        Instant neededSince = status.window != null && status.phase != Phase.Starting
                ? max(silentSince, Instant.ofEpochMilli(status.window.endEpochMs)) : silentSince;
        Duration silent = Duration.between(neededSince, now);
        if (silent.compareTo(AGENT_UNREACHABLE_LIMIT) >= 0) {
            return fail(RunConditions.AGENTS_REACHABLE, "AgentUnreachable", role + ": no answer for "
                    + Duration.between(silentSince, now).toSeconds() + " s (limit " + AGENT_UNREACHABLE_LIMIT.toSeconds()
                    + " s once the run needs it): " + error);
        }
        return decide(retry);
    }

    static Instant max(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    static String target(RunPlan plan, RoleObservation server) {
        return plan.scheme() + "://" + HostPort.of(server.address(), server.port() != null ? server.port() : plan.server().port());
    }

    boolean condition(String type, String conditionStatus, String reason, String message) {
        return RunConditions.set(status.conditions, type, conditionStatus, reason, message, now);
    }

    Decision decide(Duration recheckAfter) {
        return new Decision(status, actions, notices, recheckAfter);
    }
}
