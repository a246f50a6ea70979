package dev.pacer.engine.protocol;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.plan.RunPlan;

/**
 * Carries out one step of {@link RunProtocol} on a platform: steps, executes the actions, and steps again with their
 * outcomes (a posted run's answers, what was collected) until a step asks for nothing that answers. The operator calls
 * it once per reconcile, the CLI in a loop; neither holds a rule of the protocol.
 */
public final class RunDriver {
    /** Steps with outcomes in a row, at most: create → refused, arm → armed, start → scheduled, collect → judged. */
    static final int MAX_STEPS = 5;

    private RunDriver() {
    }

    /** What a platform does for the protocol. Each method is idempotent. */
    public interface Effects {
        /** @return why the platform refused to create it, if it did (a pod the API server finds invalid) */
        Optional<String> createServer();

        /** @return why the platform refused to create it, if it did */
        Optional<String> createProbe(Action.CreateProbe create);

        /** @return why the platform refused to create one, if it did */
        Optional<String> createClients(List<String> names);

        AgentAnswer<LoadRunStatus> postRun(Action.PostRun post);

        AgentAnswer<LoadRunStatus> postStart(Action.PostStart start);

        AgentAnswer<LoadRunStatus> moveWindow(Action.MoveWindow move);

        Outcomes.Collection collect(Action.Collect collect);

        /** Keeps the results; @return where they are kept beyond the run's pods, when the platform keeps them */
        Optional<BenchmarkRunStatus.Artifacts> publish(Action.Publish publish);

        void cleanUp(Action.CleanUp cleanUp);

        void stopRoles(Action.StopRoles stop);

        void expireRun(Action.ExpireRun expire);

        /** A notice for users (an event, a printed line). */
        void notify(Notice notice);
    }

    /** One step and its follow-ups; the last decision, whose status the platform keeps and whose recheck it honours. */
    public static Decision drive(RunPlan plan, BenchmarkRunStatus status, Observations seen, Effects effects, Clock clock) {
        Outcomes outcomes = Outcomes.NONE;
        Decision decision = null;
        for (int i = 0; i < MAX_STEPS; i++) {
            decision = RunProtocol.step(plan, status, seen, outcomes, clock.instant());
            decision.notices().forEach(effects::notify);
            Outcomes.Builder produced = new Outcomes.Builder();
            boolean answered = false;
            for (Action action : decision.actions()) {
                switch (action) {
                    case Action.CreateServer ignored -> {
                        Optional<String> refused = effects.createServer();
                        refused.ifPresent(produced::refused);
                        answered |= refused.isPresent();
                    }
                    case Action.CreateProbe create -> {
                        Optional<String> refused = effects.createProbe(create);
                        refused.ifPresent(produced::refused);
                        answered |= refused.isPresent();
                    }
                    case Action.CreateClients create -> {
                        Optional<String> refused = effects.createClients(create.names());
                        refused.ifPresent(produced::refused);
                        answered |= refused.isPresent();
                    }
                    case Action.PostRun post -> {
                        produced.posted(post.client(), effects.postRun(post));
                        answered = true;
                    }
                    case Action.PostStart start -> {
                        produced.started(start.client(), effects.postStart(start));
                        answered = true;
                    }
                    case Action.MoveWindow move -> {
                        produced.windowMoved(move.client(), effects.moveWindow(move));
                        answered = true;
                    }
                    case Action.Collect collect -> {
                        produced.collected(effects.collect(collect));
                        answered = true;
                    }
                    case Action.Publish publish -> {
                        BenchmarkRunStatus finalStatus = decision.status();
                        effects.publish(publish).ifPresent(kept -> finalStatus.artifacts = kept);
                    }
                    case Action.CleanUp cleanUp -> effects.cleanUp(cleanUp);
                    case Action.StopRoles stop -> effects.stopRoles(stop);
                    case Action.ExpireRun expire -> effects.expireRun(expire);
                }
            }
            // a step that ended the run ends the drive too: the platform keeps the final status before anything is
            // cleaned up, so that a step reading a stale status never sees its pods being deleted
            if (!answered || decision.finished()) {
                return decision;
            }
            outcomes = produced.build();
            status = decision.status();
        }
        return decision;
    }
}
