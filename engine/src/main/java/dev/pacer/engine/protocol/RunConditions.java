package dev.pacer.engine.protocol;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

/**
 * The conditions of a run, Kubernetes-style (docs/design.md, "Conditions"). {@code lastTransitionTime} changes only
 * when a condition's status flips, so watchers see real transitions, not every step.
 * <p>Outcome conditions, exact enough for a CI to wait on:
 * <ul>
 *   <li>{@value #FINISHED}: True once the run is over, whatever its outcome (phase Succeeded or Failed);</li>
 *   <li>{@value #COMPLETE}: True when the run was carried out to the end and has a verdict (phase Succeeded);</li>
 *   <li>{@value #PASSED}: True when the verdict is Passed; False once finished otherwise (verdict Failed or Invalid,
 *       or the run could not be completed), the reason saying which;</li>
 *   <li>{@value #FAILED}: True when the run could not be completed (phase Failed), the reason naming why.</li>
 * </ul>
 * Progress conditions:
 * <ul>
 *   <li>{@value #READY}: Unknown while the run goes on (the reason is the phase); True once it has a verdict; False
 *       when it failed. Not a pass/fail signal: wait on {@value #PASSED};</li>
 *   <li>{@value #SPEC_VALID}: False with every problem, each naming its field, when the spec is refused;</li>
 *   <li>{@value #PODS_READY}: whether every pod (process) of the run is ready; False names what holds one back;</li>
 *   <li>{@value #AGENTS_REACHABLE}: whether every agent answers;</li>
 *   <li>{@value #CPUS_PINNED}: when exclusive CPUs were asked for, whether every such pod got them; False makes the
 *       verdict Invalid.</li>
 *   <li>{@value #CLOCKS_SYNCHRONIZED}: whether every agent's clock is within a quarter of
 *       {@code criteria.maxSendLagP99} of the orchestrator's, measured before the load; False fails the run
 *       (reason ClockOffset) before any load is sent.</li>
 * </ul>
 */
public final class RunConditions {
    public static final String FINISHED = "Finished";
    public static final String COMPLETE = "Complete";
    public static final String PASSED = "Passed";
    public static final String FAILED = "Failed";
    public static final String READY = "Ready";
    public static final String SPEC_VALID = "SpecValid";
    public static final String PODS_READY = "PodsReady";
    public static final String AGENTS_REACHABLE = "AgentsReachable";
    public static final String CPUS_PINNED = "CpusPinned";
    public static final String CLOCKS_SYNCHRONIZED = "ClocksSynchronized";

    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    private RunConditions() {
    }

    /** Sets a condition; answers whether its status, reason or message changed (worth an event). */
    public static boolean set(List<Condition> conditions, String type, String status, String reason, String message, Instant now) {
        Condition existing = find(conditions, type);
        String transition = existing != null && status.equals(existing.getStatus()) && existing.getLastTransitionTime() != null
                ? existing.getLastTransitionTime() : now.toString();
        Condition updated = new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
                .withObservedGeneration(existing == null ? null : existing.getObservedGeneration())
                .withLastTransitionTime(transition).build();
        if (existing != null) {
            conditions.set(conditions.indexOf(existing), updated);
            return !status.equals(existing.getStatus()) || !reason.equals(existing.getReason()) || !Objects.equals(message, existing.getMessage());
        }
        conditions.add(updated);
        return true;
    }

    /** The condition of a type, or {@code null}. */
    public static Condition find(List<Condition> conditions, String type) {
        return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    }

    /** Why a run or suite failed, "Reason: message" from its Failed condition; {@code null} without one. */
    public static String failure(List<Condition> conditions) {
        Condition failed = find(conditions, FAILED);
        return failed == null ? null : failed.getReason() + ": " + failed.getMessage();
    }

    /** Whether the condition of a type has the status. */
    public static boolean is(List<Condition> conditions, String type, String status) {
        Condition condition = find(conditions, type);
        return condition != null && status.equals(condition.getStatus());
    }
}
