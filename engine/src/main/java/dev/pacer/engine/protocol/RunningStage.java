package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunConditions.UNKNOWN;
import static dev.pacer.engine.protocol.RunProtocol.CLIENT_START_GRACE;
import static dev.pacer.engine.protocol.RunProtocol.POLL;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.plan.RunPlan;

/**
 * WarmingUp and Measuring: the clients' progress, a failed or lost role, then Collecting once every client is done.
 * Just before the window starts (the protocol looks again {@link #LOOK_BEFORE_WINDOW} before it), a client still behind
 * its schedule (a backlog of more than {@code criteria.maxSendLagP99} of its requests) moves the window later, one sample
 * period at a time, each new start looked at again just before it: a warm-up backlog never spills into the window. The
 * warm-up grows so only while the window still ends within {@code spec.timeout}, and past {@code spec.warmup} more only
 * while the largest backlog shrinks from one look to the next (a client that is not catching up would spend the whole
 * timeout). Beyond, the window starts with the backlog in it, the run says why, and its verdict is Invalid
 * ({@code status.behindAtWindowStart}, read by the collecting step).
 */
final class RunningStage extends ProtocolStep {
    /** What collecting the histograms may take after the window, at most, when a moved window must still fit the timeout. */
    static final Duration COLLECT_ALLOWANCE = Duration.ofSeconds(60);
    /** How long before the window's start the clients are looked at, to judge whether they are on schedule. */
    static final Duration LOOK_BEFORE_WINDOW = Duration.ofMillis(300);
    /** How long after the clients' schedules end they are looked at, for their last responses to come in. */
    static final Duration LOOK_AFTER_SCHEDULES = Duration.ofMillis(100);

    RunningStage(ProtocolStep shared) {
        super(shared);
    }

    Decision running(RunPlan plan, Observations seen, Outcomes outcomes, Instant started) {
        Optional<Decision> gone = failOnLostRoles(plan, seen);
        if (gone.isPresent()) {
            return gone.get();
        }
        boolean stayed = everyClientRefusedTheMove(plan, outcomes);
        if (stayed) {
            keepTheWindowTheClientsHold(plan);
        }
        for (var move : stayed ? List.<Map.Entry<String, AgentAnswer<LoadRunStatus>>>of() : outcomes.windowMoves().entrySet()) {
            if (!move.getValue().answered() || move.getValue().refused()) {
                // the clients may now disagree on the window: no figure of this run could be trusted
                return fail(RunConditions.READY, "WindowNotMoved", move.getKey() + " did not take the window's new start "
                        + Instant.ofEpochMilli(status.window.startEpochMs) + ": " + move.getValue().error());
            }
        }
        Map<String, Long> lateMs = new LinkedHashMap<>();
        Map<String, LoadRunStatus> reports = new LinkedHashMap<>();
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
            reports.put(role.name(), runStatus);
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
            lateMs.put(role.name(), runStatus.lateRequestsOrZero() * 1000 / Math.max(1, role.ratePerSecond()));
            offered += runStatus.offeredRateOrZero();
            achieved += runStatus.achievedRateOrZero();
            errors += runStatus.errorsOrZero();
        }
        condition(RunConditions.AGENTS_REACHABLE, TRUE, "AgentsAnswer", "every agent answers");
        long nowMs = now.toEpochMilli();
        Optional<Decision> retold = windowAsTheClientsHoldIt(plan, reports, outcomes, lateMs, nowMs);
        if (retold.isPresent()) {
            return retold.get();
        }
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
        Optional<Decision> later = windowLater(plan, lateMs, nowMs, started);
        if (later.isPresent()) {
            return later.get();
        }
        Phase next = nowMs < status.window.startEpochMs ? Phase.WarmingUp : Phase.Measuring;
        if (next != status.phase) {
            notices.add(Notice.normal("Measuring", "warm-up over; measuring until " + Instant.ofEpochMilli(status.window.endEpochMs)));
        }
        status.phase = next;
        condition(RunConditions.READY, UNKNOWN, next.name(), String.format(Locale.ROOT,
                "%.0f of %.0f s; achieved %.0f of %.0f req/s", progress.elapsedSeconds, progress.totalSeconds, achieved, offered));
        return decide(untilTheNextLook(plan, nowMs));
    }

    /**
     * The next look: every POLL, one just before the window starts, where the clients' schedule is judged, and one as
     * the clients should be done (their schedules run one period past the window), so that collecting starts then.
     */
    private Duration untilTheNextLook(RunPlan plan, long nowMs) {
        long untilLookMs = status.window.startEpochMs - lookBeforeWindowMs(plan) - nowMs;
        long untilDoneMs = status.window.endEpochMs + plan.samplePeriod().toMillis() + LOOK_AFTER_SCHEDULES.toMillis() - nowMs;
        long nextMs = POLL.toMillis();
        for (long candidateMs : new long[] {untilLookMs, untilDoneMs}) {
            if (candidateMs > 0 && candidateMs < nextMs) {
                nextMs = candidateMs;
            }
        }
        return Duration.ofMillis(nextMs);
    }

    /**
     * At the warm-up's end, the first look from just before the window's start (the one scheduled then, or a late one)
     * judges it, once: a client behind its schedule moves the window to the first period boundary at least a period
     * away, if the warm-up may still grow and the look came within the window's first period; if not, the run will be
     * Invalid. Later
     * looks at the same window change nothing (a backlog after the start is the window's own to measure), but one still
     * before the start that finds every client on schedule clears that verdict: the backlog drained in time.
     */
    private Optional<Decision> windowLater(RunPlan plan, Map<String, Long> lateMs, long nowMs, Instant started) {
        long periodMs = plan.samplePeriod().toMillis();
        long startMs = status.window.startEpochMs;
        if (nowMs < startMs - lookBeforeWindowMs(plan)) {
            return Optional.empty();
        }
        long allowedMs = plan.criteria().maxSendLagP99().toMillis();
        List<String> behind = lateMs.entrySet().stream().filter(e -> e.getValue() > allowedMs)
                .map(e -> e.getKey() + " " + e.getValue() + " ms").toList();
        if (Objects.equals(status.windowJudgedEpochMs, startMs)) {
            if (behind.isEmpty() && nowMs < startMs && status.behindAtWindowStart != null) {
                status.behindAtWindowStart = null;
                // the refusal's event said the run would be Invalid: one that says it no longer will
                notices.add(Notice.normal("WarmupCaughtUp", "every client on its schedule before the window started: "
                        + "the backlog drained in time, and the window is judged on its own figures"));
            }
            return Optional.empty();
        }
        status.windowJudgedEpochMs = startMs;
        if (behind.isEmpty()) {
            return Optional.empty();
        }
        if (nowMs >= startMs + periodMs) {   // its look did not come (an agent that did not answer, a retried step)
            status.behindAtWindowStart = String.join(", ", behind) + " behind schedule at the first look at the window, "
                    + (nowMs - startMs) + " ms after its start, too late to move it: the window may have measured the clients "
                    + "catching up a warm-up backlog";
            notices.add(Notice.warning("WarmupNotExtended", status.behindAtWindowStart + "; the run will be Invalid"));
            return Optional.empty();
        }
        long newStartMs = startMs + Math.max(1, Math.ceilDiv(nowMs + periodMs - startMs, periodMs)) * periodMs;
        long durationMs = status.window.endEpochMs - startMs;
        long plannedStartMs = status.startAtEpochMs + plan.warmup().toMillis();
        long extendedMs = newStartMs - plannedStartMs;
        boolean withinWarmup = extendedMs <= plan.warmup().toMillis();
        boolean withinTimeout = newStartMs + durationMs + 2 * periodMs + COLLECT_ALLOWANCE.toMillis()
                <= started.plus(plan.timeout()).toEpochMilli();
        long backlogMs = lateMs.values().stream().mapToLong(Long::longValue).max().orElse(0);
        Long lastBacklogMs = status.warmupBacklogMs;
        boolean catchingUp = lastBacklogMs == null || backlogMs < lastBacklogMs;
        if (!withinTimeout || !(withinWarmup || catchingUp)) {
            String why = !withinTimeout
                    ? "a later window would not end within spec.timeout (give the run a longer spec.timeout)"
                    : "past spec.warmup more, the backlog did not shrink since the last look (" + lastBacklogMs + " ms then), "
                      + "so the clients do not keep up with their schedule (give them a spec.rampUp, more CPU with "
                      + "spec.clients.cpus, or more of them with spec.clients.count)";
            status.behindAtWindowStart = String.join(", ", behind) + " behind schedule as the window started, so the window "
                    + "measured the clients catching up: the warm-up could grow no further, as " + why;
            notices.add(Notice.warning("WarmupNotExtended", status.behindAtWindowStart + "; the run will be Invalid"));
            return Optional.empty();
        }
        status.window = new RunResult.Window(newStartMs, newStartMs + durationMs);
        status.warmupExtendedSeconds = extendedMs / 1000.0;
        status.warmupBacklogMs = backlogMs;
        notices.add(Notice.normal("WarmupExtended", String.join(", ", behind) + " behind schedule as the warm-up ended: the window "
                + "starts at " + Instant.ofEpochMilli(newStartMs) + ", the warm-up extended by " + extendedMs / 1000.0 + " s"));
        plan.clients().forEach(client -> actions.add(new Action.MoveWindow(client.name(), newStartMs)));
        condition(RunConditions.READY, UNKNOWN, Phase.WarmingUp.name(), "warm-up extended by " + extendedMs / 1000.0 + " s: "
                + String.join(", ", behind) + " behind schedule");
        status.phase = Phase.WarmingUp;
        return Optional.of(decide(untilTheNextLook(plan, nowMs)));
    }

    /**
     * Every client refused the move (409: the new start had passed when it read it, as a client starved of its CPU
     * reads its calls late): they all still hold the window judged, so they agree on it.
     */
    private boolean everyClientRefusedTheMove(RunPlan plan, Outcomes outcomes) {
        var moves = outcomes.windowMoves();
        return status.windowJudgedEpochMs != null && moves.size() == plan.clients().size()
                && plan.clients().stream().allMatch(c -> moves.containsKey(c.name()) && moves.get(c.name()).statusCode() == 409);
    }

    /**
     * The window goes back to the one the clients hold, the one the move was to leave, and the run will be Invalid: the
     * clients were behind their schedule as it started.
     */
    private void keepTheWindowTheClientsHold(RunPlan plan) {
        long heldStartMs = status.windowJudgedEpochMs;
        long movedStartMs = status.window.startEpochMs;
        long durationMs = status.window.endEpochMs - movedStartMs;
        status.window = new RunResult.Window(heldStartMs, heldStartMs + durationMs);
        long extendedMs = heldStartMs - status.startAtEpochMs - plan.warmup().toMillis();
        status.warmupExtendedSeconds = extendedMs > 0 ? extendedMs / 1000.0 : null;
        status.behindAtWindowStart = String.join(", ", plan.clients().stream().map(RunPlan.ClientRole::name).toList()) + " behind schedule as the warm-up ended, and "
                + "the window's move to " + Instant.ofEpochMilli(movedStartMs) + " reached them after that start had passed (a client "
                + "that answers so late is short of CPU): the window stayed at " + Instant.ofEpochMilli(heldStartMs)
                + " and measured the clients catching up a warm-up backlog";
        notices.add(Notice.warning("WarmupNotExtended", status.behindAtWindowStart + "; the run will be Invalid"));
    }

    /**
     * The clients are told of a moved window before its status is kept: a status lost on the way (a failed patch, a
     * restarted operator) leaves the clients' window later than the status's. The latest start a client holds is then
     * the run's window (the window before it was judged, as the move shows), and the backlog they report now stands for
     * the one that moved it. A client not told of it yet (the step stopped between two moves) is told again while the
     * start is still to come; past it, the clients measure different windows and the run fails, as on a refused move.
     */
    private Optional<Decision> windowAsTheClientsHoldIt(RunPlan plan, Map<String, LoadRunStatus> reports, Outcomes outcomes,
                                                        Map<String, Long> lateMs, long nowMs) {
        long keptStartMs = status.window.startEpochMs;
        long heldStartMs = reports.values().stream().map(LoadRunStatus::window).filter(Objects::nonNull)
                .mapToLong(LoadRunStatus.Window::startEpochMs).max().orElse(keptStartMs);
        if (heldStartMs > keptStartMs) {
            long durationMs = status.window.endEpochMs - keptStartMs;
            status.windowJudgedEpochMs = keptStartMs;
            status.window = new RunResult.Window(heldStartMs, heldStartMs + durationMs);
            status.warmupExtendedSeconds = (heldStartMs - status.startAtEpochMs - plan.warmup().toMillis()) / 1000.0;
            status.warmupBacklogMs = lateMs.values().stream().mapToLong(Long::longValue).max().orElse(0);
            notices.add(Notice.normal("WindowFromClients", "the clients hold a window from " + Instant.ofEpochMilli(heldStartMs)
                    + ", later than the status kept (the status of its move was lost): the run's window is theirs"));
        }
        // a client whose move was answered in this step holds the new start, whatever an earlier read of it said
        List<String> notTold = reports.entrySet().stream().filter(r -> !outcomes.windowMoves().containsKey(r.getKey())
                && r.getValue().window() != null && r.getValue().window().startEpochMs() < status.window.startEpochMs)
                .map(Map.Entry::getKey).toList();
        if (notTold.isEmpty()) {
            return Optional.empty();
        }
        if (nowMs >= status.window.startEpochMs) {
            return Optional.of(fail(RunConditions.READY, "WindowNotMoved", String.join(", ", notTold) + " did not take the "
                    + "window's new start " + Instant.ofEpochMilli(status.window.startEpochMs) + " before it came"));
        }
        notTold.forEach(client -> actions.add(new Action.MoveWindow(client, status.window.startEpochMs)));
        status.phase = Phase.WarmingUp;
        return Optional.of(decide(untilTheNextLook(plan, nowMs)));
    }

    /**
     * How long before the window's start its judging look comes: {@link #LOOK_BEFORE_WINDOW}, or half a period when that is
     * shorter, so that the step just after a move (a period or more before the new start) does not judge the new window
     * with what made the move.
     */
    private static long lookBeforeWindowMs(RunPlan plan) {
        return Math.min(LOOK_BEFORE_WINDOW.toMillis(), plan.samplePeriod().toMillis() / 2);
    }

    /** How long after {@code startAt} a client may still be waiting to start: 5 s, or two periods. */
    private static Duration startGrace(RunPlan plan) {
        Duration twoPeriods = plan.samplePeriod().multipliedBy(2);
        return twoPeriods.compareTo(CLIENT_START_GRACE) > 0 ? twoPeriods : CLIENT_START_GRACE;
    }
}
