package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RoleObservation.Presence.ABSENT;

import java.time.Duration;
import java.time.Instant;

import dev.pacer.api.Phase;
import dev.pacer.engine.plan.RunPlan;

/**
 * Succeeded and Failed: the pods cleaned up as {@code spec.cleanup.pods} says, then the run's time to live. A failed
 * run's pods kept under OnSuccess are stopped: kept for their logs, they must not hold the CPUs the next run needs.
 */
final class FinishedStage extends ProtocolStep {
    FinishedStage(ProtocolStep shared) {
        super(shared);
    }

    /** Cleanup of the pods as the policy says, then the run's time to live. */
    Decision finished(RunPlan plan, Observations seen) {
        // a run carried out (whatever its verdict: an Invalid one has its reasons and figures) frees its pods, whose
        // exclusive CPUs the next run needs; a failed one keeps them for a look
        boolean carriedOut = status.phase == Phase.Succeeded;
        RunPlan.PodCleanup policy = plan.cleanup().pods();
        boolean delete = policy == RunPlan.PodCleanup.Always || (policy == RunPlan.PodCleanup.OnSuccess && carriedOut);
        if (delete && !Boolean.TRUE.equals(status.podsDeleted)) {
            boolean anyLeft = !seen.server().is(ABSENT) || plan.clients().stream().anyMatch(c -> !seen.client(c.name()).is(ABSENT));
            if (anyLeft) {
                actions.add(new Action.CleanUp("spec.cleanup.pods: " + policy));
                notices.add(Notice.roles("PodsDeleted", "pods deleted (spec.cleanup.pods: " + policy + ")"));
            }
            status.podsDeleted = true;
        } else if (!delete && policy == RunPlan.PodCleanup.OnSuccess && !Boolean.TRUE.equals(status.podsStopped)) {
            boolean anyLeft = !seen.server().is(ABSENT) || plan.clients().stream().anyMatch(c -> !seen.client(c.name()).is(ABSENT));
            if (anyLeft) {
                actions.add(new Action.StopRoles("spec.cleanup.pods: OnSuccess keeps a failed run's pods"));
                notices.add(Notice.roles("PodsStopped", "pods kept for their logs and stopped, their CPUs free for the next run "
                        + "(spec.cleanup.pods: OnSuccess; Always deletes them, Never keeps them running)"));
            }
            status.podsStopped = true;
        }
        return timeToLive(plan.cleanup().ttlAfterFinished());
    }

    /** Deletes the run once its time to live after finishing has passed. */
    Decision timeToLive(Duration ttl) {
        if (ttl == null || status.completionTime == null) {
            return decide(null);
        }
        Duration left = Duration.between(now, Instant.parse(status.completionTime).plus(ttl));
        if (left.isNegative() || left.isZero()) {
            actions.add(new Action.ExpireRun("ttlSecondsAfterFinished " + ttl.toSeconds() + " passed"));
            return decide(null);
        }
        return decide(left.plusMillis(100));
    }
}
