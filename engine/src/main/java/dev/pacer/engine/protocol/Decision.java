package dev.pacer.engine.protocol;

import java.time.Duration;
import java.util.List;

import dev.pacer.api.BenchmarkRunStatus;

/**
 * The protocol's answer to one step.
 *
 * @param status        the run's status after the step (the state the next step starts from)
 * @param actions       what the orchestrator does now, in order
 * @param notices       what users hear of
 * @param recheckAfter  when to step again without a new observation; {@code null}: only when something changes
 */
public record Decision(BenchmarkRunStatus status, List<Action> actions, List<Notice> notices, Duration recheckAfter) {

    public Decision {
        actions = List.copyOf(actions);
        notices = List.copyOf(notices);
    }

    public boolean finished() {
        return status.phase != null && status.phase.isFinal();
    }
}
