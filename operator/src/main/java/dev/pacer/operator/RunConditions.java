package dev.pacer.operator;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

/**
 * The conditions of a BenchmarkRun, Kubernetes-style. {@code lastTransitionTime} changes only when a condition's
 * status flips, so watchers see real transitions, not every reconcile.
 * <ul>
 *   <li>{@value #READY}: True once the run succeeded (reason {@code Verdict<verdict>}); False with the reason when it
 *       failed; Unknown while it runs, the reason being the phase;</li>
 *   <li>{@value #SPEC_VALID}: False with every problem, each naming its field, when the spec is refused;</li>
 *   <li>{@value #PODS_READY}: whether every pod of the run is ready; False names what holds a pod back
 *       (Unschedulable, ImagePullBackOff, …);</li>
 *   <li>{@value #AGENTS_REACHABLE}: whether the operator reaches every agent;</li>
 *   <li>{@value #CPUS_PINNED}: when pinning was asked for, whether every pinned pod got exclusive CPUs of the number
 *       it asked for; False makes the verdict Invalid.</li>
 * </ul>
 */
public final class RunConditions {
    public static final String READY = "Ready";
    public static final String SPEC_VALID = "SpecValid";
    public static final String PODS_READY = "PodsReady";
    public static final String AGENTS_REACHABLE = "AgentsReachable";
    public static final String CPUS_PINNED = "CpusPinned";

    private RunConditions() {
    }

    /** Sets a condition; answers whether its status, reason or message changed (worth an event). */
    public static boolean set(List<Condition> conditions, String type, String status, String reason, String message, Long generation) {
        Condition existing = conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
        String transition = existing != null && status.equals(existing.getStatus()) && existing.getLastTransitionTime() != null
                ? existing.getLastTransitionTime() : Instant.now().toString();
        Condition updated = new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withObservedGeneration(generation).withLastTransitionTime(transition).build();
        if (existing != null) {
            conditions.set(conditions.indexOf(existing), updated);
            return !status.equals(existing.getStatus()) || !reason.equals(existing.getReason()) || !Objects.equals(message, existing.getMessage());
        }
        conditions.add(updated);
        return true;
    }
}
