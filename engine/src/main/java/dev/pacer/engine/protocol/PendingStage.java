package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunConditions.UNKNOWN;
import static dev.pacer.engine.protocol.RunProtocol.POLL;

import java.util.List;

import dev.pacer.api.Phase;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.preflight.Preflight;

/** Pending and Queued: wait for the platform's limit of runs at once, then create the server. */
final class PendingStage extends ProtocolStep {
    PendingStage(ProtocolStep shared) {
        super(shared);
    }

    Decision queued(String waitingFor) {
        if (status.phase != Phase.Queued) {
            notices.add(Notice.normal("Queued", "waiting for " + waitingFor));
        }
        status.phase = Phase.Queued;
        condition(RunConditions.READY, UNKNOWN, "Queued", "waiting for " + waitingFor);
        return decide(POLL);
    }

    Decision pending(RunPlan plan, Observations seen) {
        condition(RunConditions.SPEC_VALID, TRUE, "Accepted", "the spec is valid");
        // a pod the scheduler can never place would wait until READY_LIMIT: where the nodes say so, refuse now. No node
        // listed at all (nodes yet to come, as an autoscaler adds them) says nothing: the scheduler decides.
        List<Preflight.Finding> unplaceable = seen.nodes().filter(nodes -> !nodes.isEmpty())
                .map(nodes -> Preflight.placement(plan, nodes)).orElse(List.of());
        if (!unplaceable.isEmpty()) {
            return fail(RunConditions.PODS_READY, "Unplaceable", String.join("; ", unplaceable.stream()
                    .map(f -> f.subject() + ": " + f.message()).toList()));
        }
        actions.add(new Action.CreateServer());
        status.phase = Phase.Starting;
        condition(RunConditions.READY, UNKNOWN, "Starting", "creating the server");
        notices.add(Notice.roles("Starting", "creating the server (" + plan.server().image() + ")"));
        return decide(POLL);
    }
}
