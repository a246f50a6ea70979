package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RunConditions.FALSE;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.engine.plan.RunPlan;

/**
 * The run protocol, once for every orchestrator (docs/design.md, "The run protocol"): a pure function of the run's
 * plan, its status (the state), what is observed, the outcomes of this step's actions and the current time, to the
 * next status and the actions to carry out. No I/O and no clock of its own, so every transition is tested alone.
 * <ol>
 *   <li>Pending → Queued while the platform's limit of runs at once is taken (oldest first; the timeout starts when
 *       the run leaves the queue) → a run whose pods no node can take fails (Unplaceable: a selector matching no
 *       schedulable node, separateNodes with one node) → create the server → Starting.</li>
 *   <li>Starting: a failed pod fails the run; once the server is ready the clients are created; once every role is
 *       ready, every agent's info gives {@code status.pods} and the pinning check. Then every client is armed (the run
 *       posted without a start: it connects and prepares); once all are armed, one {@code startAt} is chosen with a
 *       lead sized from the agents' answer times, written to the status and, in a later step, posted to every client
 *       that has not taken it → WarmingUp. A start a client finds passed, or not taken by all shortly before it, is
 *       replaced by a later one; a client that began at another start fails the run.</li>
 *   <li>WarmingUp, Measuring: the clients' run statuses give {@code status.progress}; a failed client or a role gone fails
 *       the run; once every client is done and a quarter period has passed after the window → Collecting.</li>
 *   <li>Collecting: collect, analyse, judge (a pinning asked for and not obtained makes the verdict Invalid) →
 *       Succeeded, with the result published.</li>
 *   <li>Succeeded, Failed: clean up as {@code spec.cleanup.pods} says; delete the run after its time to live.</li>
 * </ol>
 * {@code spec.timeout} counts from {@code status.startTime}, the first step; roles must be ready within
 * {@link #READY_LIMIT} of it.
 * <p>The status passed in is updated in place and returned in the decision.
 */
public final class RunProtocol {
    /** How often a running run is looked at. */
    public static final Duration POLL = Duration.ofSeconds(2);
    /** The next step of a sequence (after writing {@code startAt}, before posting it). */
    public static final Duration NEXT_STEP = Duration.ofMillis(200);
    /** A client that has not taken {@code startAt} this close to it gets a later one, as do the others. */
    public static final Duration BARRIER_MARGIN = Duration.ofMillis(500);
    /** What to do when a pod asked for exclusive CPUs did not get them. */
    public static final String NOT_PINNED_FIX = "A pinned run needs nodes whose kubelet runs the static CPU manager "
            + "(cpuManagerPolicy: static; docs/installing.md, \"Nodes\") and has as many whole CPUs allocatable; "
            + "or set spec.placement.pinCpus: false (or the role's pinCpus) to run unpinned, whose figures are not comparable with pinned ones";
    /** Every client must be armed (connected to the server) this long after every pod was ready. */
    public static final Duration ARM_LIMIT = Duration.ofMinutes(2);
    /** Every role must be ready this long after the run started (image pulls included). */
    public static final Duration READY_LIMIT = Duration.ofMinutes(5);
    /**
     * An agent the run needs that has not answered for this long fails the run (reason {@code AgentUnreachable}).
     * During the load the agents need no orchestrator, so silence is tolerated until the window's end; it counts from
     * then, or from the first unanswered call if later. A pod gone or failed fails the run at once instead.
     */
    public static final Duration AGENT_UNREACHABLE_LIMIT = Duration.ofSeconds(30);
    /**
     * A node of the run's pods not Ready for this long is lost, and the run fails (reason {@code NodeLost}). Not at once:
     * after an API server outage the node controller marks every node Unknown until its kubelet reports again, within
     * its status interval (10 s); a node whose kubelet is gone stays so.
     */
    public static final Duration NODE_LOST_AFTER = Duration.ofSeconds(20);
    /** A client still waiting this long after {@code startAt} (or two periods, if longer) did not start: the run fails. */
    public static final Duration CLIENT_START_GRACE = Duration.ofSeconds(5);

    private RunProtocol() {
    }

    /** A spec the planner refused: the run fails at once, every problem naming its field. */
    public static Decision rejected(BenchmarkRunStatus status, List<FieldProblem> problems, Instant now) {
        String message = String.join("; ", problems.stream().map(FieldProblem::toString).toList());
        return new ProtocolStep(status, now).fail(RunConditions.SPEC_VALID, "InvalidSpec", message);
    }

    /**
     * A run whose steps could not be carried out for longer than its timeout (the API server refusing or gone): it
     * fails, the message naming the last error. Its pods are cleaned up by the final step, like any failed run's.
     */
    public static Decision unreconcilable(BenchmarkRunStatus status, String message, Instant now) {
        return new ProtocolStep(status, now).fail(RunConditions.READY, "ReconcileError", message);
    }

    /**
     * A finished run whose spec cannot be planned (it was rejected): it has no pods, only its time to live.
     *
     * @param ttlAfterFinished {@code spec.cleanup.ttlSecondsAfterFinished}, {@code null} when unset or unreadable
     */
    public static Decision finishedWithoutPlan(BenchmarkRunStatus status, Duration ttlAfterFinished, Instant now) {
        return new FinishedStage(new ProtocolStep(status, now)).timeToLive(ttlAfterFinished);
    }

    /** One step of the run. */
    public static Decision step(RunPlan plan, BenchmarkRunStatus status, Observations seen, Outcomes outcomes, Instant now) {
        ProtocolStep step = new ProtocolStep(status, now);
        status.load = plan.load();
        Phase phase = status.phase == null ? Phase.Pending : status.phase;
        if (phase.isFinal()) {
            return new FinishedStage(step).finished(plan, seen);
        }
        if (phase == Phase.Pending || phase == Phase.Queued) {
            Optional<String> waiting = seen.waitingFor();
            if (waiting.isPresent()) {
                return new PendingStage(step).queued(waiting.get());
            }
        }
        if (status.startTime == null) {
            status.startTime = now.toString();   // the timeout counts from here: time in the queue is not the run's
        }
        Instant started = Instant.parse(status.startTime);
        if (!now.isBefore(started.plus(plan.timeout()))) {
            var silent = RunConditions.find(status.conditions, RunConditions.AGENTS_REACHABLE);
            return step.fail(RunConditions.READY, "Timeout", "spec.timeout " + plan.timeout().toSeconds() + " s passed in phase " + phase
                    + (silent != null && FALSE.equals(silent.getStatus()) ? "; an agent did not answer: " + silent.getMessage() : ""));
        }
        return switch (phase) {
            case Pending, Queued -> new PendingStage(step).pending(plan, seen);
            case Starting -> new StartingStage(step).starting(plan, seen, outcomes, started);
            case WarmingUp, Measuring -> new RunningStage(step).running(plan, seen, outcomes, started);
            case Collecting -> new CollectingStage(step).collecting(plan, seen, outcomes);
            default -> throw new IllegalStateException("phase " + phase);
        };
    }

    /** One line: the verdict and the headline figures. */
    public static String summary(RunResult result) {
        StringBuilder text = new StringBuilder("verdict ").append(result.verdict);
        if (result.server != null && result.server.histogramsAvailable) {
            text.append(String.format(Locale.ROOT, "; server P99 integral %d µs, max integral %d µs over %d periods",
                    result.server.p99IntegralMicros, result.server.maxIntegralMicros, result.server.samples));
        }
        if (result.clients != null && result.clients.achievedRate != null) {
            text.append(String.format(Locale.ROOT, "; achieved %.0f of %.0f req/s", result.clients.achievedRate, result.clients.offeredRate));
        }
        return text.toString();
    }
}
