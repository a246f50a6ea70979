package dev.pacer.operator;

import java.time.Instant;
import java.util.List;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

/**
 * The conditions of a BenchmarkRun, Kubernetes-style. {@code lastTransitionTime} changes only when a condition's
 * status flips, so watchers see real transitions, not every reconcile.
 * <ul>
 *   <li>{@value #READY}: True once the run succeeded; False with the reason when it failed; Unknown while running;</li>
 *   <li>{@value #SPEC_VALID}: False with every problem, each naming its field, when the spec is refused.</li>
 * </ul>
 */
public final class RunConditions {
    public static final String READY = "Ready";
    public static final String SPEC_VALID = "SpecValid";

    private RunConditions() {
    }

    public static void set(List<Condition> conditions, String type, String status, String reason, String message, Long generation) {
        Condition existing = conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
        String transition = existing != null && status.equals(existing.getStatus()) && existing.getLastTransitionTime() != null
                ? existing.getLastTransitionTime() : Instant.now().toString();
        Condition updated = new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withObservedGeneration(generation).withLastTransitionTime(transition).build();
        if (existing != null) {
            conditions.set(conditions.indexOf(existing), updated);
        } else {
            conditions.add(updated);
        }
    }
}
