package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunConditions.UNKNOWN;
import static dev.pacer.engine.protocol.RunProtocol.CLIENT_START_GRACE;
import static dev.pacer.engine.protocol.RunProtocol.POLL;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.plan.RunPlan;

/** WarmingUp and Measuring: the clients' progress, a failed or lost role, then Collecting once every client is done. */
final class RunningStage extends ProtocolStep {
    RunningStage(ProtocolStep shared) {
        super(shared);
    }

    Decision running(RunPlan plan, Observations seen) {
        Optional<Decision> gone = failOnLostRoles(plan, seen);
        if (gone.isPresent()) {
            return gone.get();
        }
        boolean allDone = true;
        double offered = 0;
        double achieved = 0;
        long errors = 0;
        for (RunPlan.ClientRole role : plan.clients()) {
            AgentAnswer<LoadRunStatus> answer = seen.runStatus(role.name());
            if (!answer.answered()) {
                return unreachable(role.name(), answer.error(), POLL);
            }
            LoadRunStatus runStatus = answer.value();
            if (runStatus.state() == LoadRunStatus.State.FAILED) {
                return fail(RunConditions.READY, "ClientFailed", role.name() + " (" + seen.client(role.name()).name()
                        + ") failed: " + runStatus.failure());
            }
            if (runStatus.state() == LoadRunStatus.State.WAITING && now.toEpochMilli() > status.startAtEpochMs + startGrace(plan).toMillis()) {
                return fail(RunConditions.READY, "ClientNotStarted", role.name() + " (" + seen.client(role.name()).name()
                        + ") had not started sending " + startGrace(plan).toSeconds() + " s after startAt "
                        + Instant.ofEpochMilli(status.startAtEpochMs));
            }
            allDone &= runStatus.state() == LoadRunStatus.State.DONE;
            offered += runStatus.offeredRateOrZero();
            achieved += runStatus.achievedRateOrZero();
            errors += runStatus.errorsOrZero();
        }
        condition(RunConditions.AGENTS_REACHABLE, TRUE, "AgentsAnswer", "every agent answers");
        long nowMs = now.toEpochMilli();
        BenchmarkRunStatus.Progress progress = new BenchmarkRunStatus.Progress();
        progress.elapsedSeconds = Math.max(0, nowMs - status.startAtEpochMs) / 1000.0;
        progress.totalSeconds = (status.window.endEpochMs - status.startAtEpochMs) / 1000.0;
        progress.offeredRate = offered;
        progress.achievedRate = achieved;
        progress.errors = errors;
        progress.updated = now.toString();
        seen.serverLastPeriodP99Seconds().ifPresent(p99 -> progress.serverLastPeriodP99Micros = Math.round(p99 * 1e6));
        status.progress = progress;
        if (allDone && nowMs >= status.window.endEpochMs + plan.samplePeriod().toMillis() / 4) {
            status.phase = Phase.Collecting;
            condition(RunConditions.READY, UNKNOWN, "Collecting", "collecting histograms from " + (plan.clients().size() + 1) + " agents");
            actions.add(new Action.Collect(status.window.startEpochMs, status.window.endEpochMs));
            return decide(Duration.ZERO);
        }
        Phase next = nowMs < status.window.startEpochMs ? Phase.WarmingUp : Phase.Measuring;
        if (next != status.phase) {
            notices.add(Notice.normal("Measuring", "warm-up over; measuring until " + Instant.ofEpochMilli(status.window.endEpochMs)));
        }
        status.phase = next;
        condition(RunConditions.READY, UNKNOWN, next.name(), String.format(Locale.ROOT,
                "%.0f of %.0f s; achieved %.0f of %.0f req/s", progress.elapsedSeconds, progress.totalSeconds, achieved, offered));
        return decide(POLL);
    }

    /** How long after {@code startAt} a client may still be waiting to start: 5 s, or two periods. */
    private static Duration startGrace(RunPlan plan) {
        Duration twoPeriods = plan.samplePeriod().multipliedBy(2);
        return twoPeriods.compareTo(CLIENT_START_GRACE) > 0 ? twoPeriods : CLIENT_START_GRACE;
    }
}
