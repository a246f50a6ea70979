package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RoleObservation.Presence.ABSENT;
import static dev.pacer.engine.protocol.RoleObservation.Presence.FAILED;
import static dev.pacer.engine.protocol.RoleObservation.Presence.READY;
import static dev.pacer.engine.protocol.RunConditions.FALSE;
import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunConditions.UNKNOWN;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Measure;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.RunReport;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.report.ResultDocument;

/**
 * The run protocol, once for every orchestrator (docs/design.md, "The run protocol"): a pure function of the run's
 * plan, its status (the state), what is observed, the outcomes of this step's actions and the current time, to the
 * next status and the actions to carry out. No I/O and no clock of its own, so every transition is tested alone.
 * <ol>
 *   <li>Pending → Queued while the platform's limit of runs at once is taken (oldest first; the timeout starts when
 *       the run leaves the queue) → create the server → Starting.</li>
 *   <li>Starting: a failed pod fails the run; once the server is ready the clients are created; once every role is
 *       ready, every agent's info gives {@code status.pods} and the pinning check. Then every client is armed (the run
 *       posted without a start: it connects and prepares); once all are armed, one {@code startAt} is chosen with a
 *       lead sized from the agents' answer times, written to the status and, in a later step, posted to every client
 *       that has not taken it → WarmingUp. A start a client finds passed, or not taken by all shortly before it, is
 *       replaced by a later one; a client that began at another start fails the run.</li>
 *   <li>WarmingUp, Measuring: the clients' reports give {@code status.progress}; a failed client or a role gone fails
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
    /** A client still waiting this long after {@code startAt} (or two periods, if longer) did not start: the run fails. */
    public static final Duration CLIENT_START_GRACE = Duration.ofSeconds(5);

    private RunProtocol() {
    }

    /** A spec the planner refused: the run fails at once, every problem naming its field. */
    public static Decision rejected(BenchmarkRunStatus status, List<FieldProblem> problems, Instant now) {
        String message = String.join("; ", problems.stream().map(FieldProblem::toString).toList());
        return new Step(status, now).fail(RunConditions.SPEC_VALID, "InvalidSpec", message);
    }

    /**
     * A run whose steps could not be carried out for longer than its timeout (the API server refusing or gone): it
     * fails, the message naming the last error. Its pods are cleaned up by the final step, like any failed run's.
     */
    public static Decision unreconcilable(BenchmarkRunStatus status, String message, Instant now) {
        return new Step(status, now).fail(RunConditions.READY, "ReconcileError", message);
    }

    /**
     * A finished run whose spec cannot be planned (it was rejected): it has no pods, only its time to live.
     *
     * @param ttlAfterFinished {@code spec.cleanup.ttlSecondsAfterFinished}, {@code null} when unset or unreadable
     */
    public static Decision finishedWithoutPlan(BenchmarkRunStatus status, Duration ttlAfterFinished, Instant now) {
        return new Step(status, now).timeToLive(ttlAfterFinished);
    }

    /** One step of the run. */
    public static Decision step(RunPlan plan, BenchmarkRunStatus status, Observations seen, Outcomes outcomes, Instant now) {
        Step step = new Step(status, now);
        status.load = plan.load();
        Phase phase = status.phase == null ? Phase.Pending : status.phase;
        if (phase.isFinal()) {
            return step.finished(plan, seen);
        }
        if (phase == Phase.Pending || phase == Phase.Queued) {
            Optional<String> waiting = seen.waitingFor();
            if (waiting.isPresent()) {
                return step.queued(waiting.get());
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
            case Pending, Queued -> step.pending(plan);
            case Starting -> step.starting(plan, seen, outcomes, started);
            case WarmingUp, Measuring -> step.running(plan, seen);
            case Collecting -> step.collecting(plan, seen, outcomes);
            default -> throw new IllegalStateException("phase " + phase);
        };
    }

    /** One step: the status it changes, the actions and notices it gathers. */
    private static final class Step {
        final BenchmarkRunStatus status;
        final Instant now;
        final List<Action> actions = new ArrayList<>();
        final List<Notice> notices = new ArrayList<>();

        Step(BenchmarkRunStatus status, Instant now) {
            this.status = status;
            this.now = now;
        }

        Decision queued(String waitingFor) {
            if (status.phase != Phase.Queued) {
                notices.add(Notice.normal("Queued", "waiting for " + waitingFor));
            }
            status.phase = Phase.Queued;
            condition(RunConditions.READY, UNKNOWN, "Queued", "waiting for " + waitingFor);
            return decide(POLL);
        }

        Decision pending(RunPlan plan) {
            condition(RunConditions.SPEC_VALID, TRUE, "Accepted", "the spec is valid");
            actions.add(new Action.CreateServer());
            status.phase = Phase.Starting;
            condition(RunConditions.READY, UNKNOWN, "Starting", "creating the server");
            notices.add(Notice.roles("Starting", "creating the server (" + plan.server().image() + ")"));
            return decide(POLL);
        }

        Decision starting(RunPlan plan, Observations seen, Outcomes outcomes, Instant started) {
            if (outcomes.refused().isPresent()) {
                return fail(RunConditions.PODS_READY, "PodRejected", outcomes.refused().get());
            }
            RoleObservation server = seen.server();
            if (server.is(ABSENT)) {
                return fail(RunConditions.PODS_READY, "PodDeleted", "server " + server.name() + " was deleted before the run started");
            }
            if (server.is(READY) && plan.server().measure().probe()) {
                RoleObservation probe = seen.probe();
                if (probe.is(FAILED)) {
                    return fail(RunConditions.PODS_READY, probe.reason(), probe.message());
                }
                if (probe.is(ABSENT)) {
                    actions.add(new Action.CreateProbe(server.node(), server.address(), plan.server().port()));
                    notices.add(Notice.roles("Starting", "server ready; attaching the kernel probe on node " + server.node()));
                }
                if (!probe.is(READY)) {
                    if (now.isAfter(started.plus(READY_LIMIT))) {
                        return fail(RunConditions.PODS_READY, "NotReady", "the kernel probe " + probe.name() + " not ready "
                                + READY_LIMIT.toMinutes() + " min after the run started" + (probe.hasProblem() ? ": " + probe.message() : ""));
                    }
                    return waitFor(List.of(probe), "waiting for the kernel probe " + probe.name() + " to attach to the server");
                }
            }
            List<RoleObservation> clients = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            if (server.is(READY)) {
                for (RunPlan.ClientRole role : plan.clients()) {
                    RoleObservation client = seen.client(role.name());
                    if (client.is(ABSENT)) {
                        missing.add(role.name());
                    } else {
                        clients.add(client);
                    }
                }
            }
            List<RoleObservation> present = new ArrayList<>();
            present.add(server);
            present.addAll(clients);
            Optional<RoleObservation> failed = present.stream().filter(r -> r.is(FAILED)).findFirst();
            if (failed.isPresent()) {
                return fail(RunConditions.PODS_READY, failed.get().reason(), failed.get().message());
            }
            if (!server.is(READY) || !missing.isEmpty() || !clients.stream().allMatch(c -> c.is(READY))) {
                if (now.isAfter(started.plus(READY_LIMIT))) {
                    String holding = present.stream().filter(r -> !r.is(READY)).map(RoleObservation::name).toList()
                            + (missing.isEmpty() ? "" : " and clients not created " + missing);
                    return fail(RunConditions.PODS_READY, "NotReady", holding + " not ready " + READY_LIMIT.toMinutes()
                            + " min after the run started" + present.stream().filter(RoleObservation::hasProblem)
                            .map(r -> ": " + r.message()).findFirst().orElse(""));
                }
                if (!missing.isEmpty()) {
                    actions.add(new Action.CreateClients(missing));
                    notices.add(Notice.roles("Starting", "server ready; creating " + missing.size() + " client" + (missing.size() == 1 ? "" : "s")));
                }
                long ready = clients.stream().filter(c -> c.is(READY)).count();
                return waitFor(present, !server.is(READY) ? "waiting for server " + server.name() + " to become ready"
                        : ready + " of " + plan.clients().size() + " clients ready");
            }
            condition(RunConditions.PODS_READY, TRUE, "PodsReady", "server and " + clients.size() + " clients ready");
            if (status.pods.isEmpty() || status.pods.stream().anyMatch(p -> p.cpuset == null && !cpusetUnknowable(p, plan.server().measure()))) {
                List<BenchmarkRunStatus.PodStatus> pods = new ArrayList<>();
                List<String> roleNames = new ArrayList<>();
                roleNames.add(AgentContract.ROLE_SERVER);
                plan.clients().forEach(c -> roleNames.add(c.name()));
                for (int i = 0; i < present.size(); i++) {
                    RoleObservation role = present.get(i);
                    String roleName = roleNames.get(i);
                    if (i == 0 && !plan.server().measure().measured()) {
                        pods.add(podStatus(role, roleName, null));   // nobody to ask: the server runs without agent or probe
                        continue;
                    }
                    AgentAnswer<AgentInfo> info = seen.info(roleName);
                    if (!info.answered()) {
                        return unreachable(roleName, info.error(), POLL);
                    }
                    pods.add(podStatus(role, roleName, info.value()));
                }
                status.pods = pods;
                condition(RunConditions.AGENTS_REACHABLE, TRUE, "AgentsAnswer", "every agent answers");
                List<String> pinning = pinningProblems(plan.server().measure());
                if (!pinning.isEmpty()) {
                    // the figures of this run could not be compared with pinned ones: say so now, not as Invalid later
                    List<String> nodes = status.pods.stream().filter(p -> Boolean.FALSE.equals(p.pinned)).map(p -> p.node).distinct().toList();
                    return fail(RunConditions.CPUS_PINNED, "NotPinned", String.join("; ", pinning) + " (node " + String.join(", ", nodes)
                            + "). " + NOT_PINNED_FIX);
                } else if (status.pods.stream().anyMatch(p -> p.pinned != null)) {
                    condition(RunConditions.CPUS_PINNED, TRUE, "Pinned", "every pinned pod holds exclusive CPUs of the number it asked for");
                }
            }
            return armAndStart(plan, server, seen, outcomes);
        }

        /**
         * The clients arm (connect and prepare) before any start is chosen; once all are armed, {@code startAt} is
         * chosen with a lead sized from the agents' measured answer times, kept, then posted. A start a client finds
         * passed, or one too close to post safely, is replaced by a later one: no client begins behind its schedule.
         */
        private Decision armAndStart(RunPlan plan, RoleObservation server, Observations seen, Outcomes outcomes) {
            for (Map.Entry<String, AgentAnswer<RunReport>> post : outcomes.posts().entrySet()) {
                AgentAnswer<RunReport> answer = post.getValue();
                if (answer.refused() && answer.statusCode() != AgentContract.RUN_ALREADY_TAKEN) {
                    return fail(RunConditions.READY, "ClientRefusedRun", post.getKey() + " refused the run: " + answer.error());
                }
                if (answer.unreachable()) {
                    return unreachable(post.getKey(), answer.error(), NEXT_STEP);
                }
            }
            if (!outcomes.posts().isEmpty()) {
                condition(RunConditions.READY, UNKNOWN, "Arming", "arming " + outcomes.posts().size() + " of " + plan.clients().size() + " clients");
                return decide(NEXT_STEP);   // they connect now: their reports say when they are armed
            }
            if (!outcomes.starts().isEmpty()) {
                Optional<Decision> refused = startRefused(plan, outcomes.starts());
                if (refused.isPresent()) {
                    return refused.get();
                }
            }
            List<String> idle = new ArrayList<>();
            List<String> arming = new ArrayList<>();
            List<String> toStart = new ArrayList<>();
            long slowestAnswerNanos = 0;
            for (RunPlan.ClientRole role : plan.clients()) {
                AgentAnswer<RunReport> answer = outcomes.starts().containsKey(role.name()) ? outcomes.starts().get(role.name()) : seen.report(role.name());
                if (!answer.answered()) {
                    return unreachable(role.name(), answer.error(), POLL);
                }
                slowestAnswerNanos = Math.max(slowestAnswerNanos, answer.answerNanos());
                RunReport report = answer.value();
                boolean tookThisStart = status.startAtEpochMs != null && status.startAtEpochMs.equals(report.startAtEpochMs());
                switch (report.state()) {
                    case IDLE -> idle.add(role.name());
                    case ARMING -> arming.add(role.name());
                    case FAILED -> {
                        return fail(RunConditions.READY, "ClientFailed", role.name() + " (" + seen.client(role.name()).name()
                                + ") failed before the load: " + report.failure());
                    }
                    case ARMED -> toStart.add(role.name());
                    case WAITING -> {
                        if (!tookThisStart) {
                            toStart.add(role.name());   // a start not replaced yet: the new one replaces it
                        }
                    }
                    case WARMUP, MEASURING, DONE -> {
                        if (!tookThisStart) {
                            return fail(RunConditions.READY, "BarrierMissed", role.name() + " began its load at "
                                    + Instant.ofEpochMilli(report.startAtEpochMs()) + ", not at the run's startAt: the run cannot start together");
                        }
                    }
                }
            }
            if (!idle.isEmpty()) {
                String target = target(plan, server);
                for (String client : idle) {
                    actions.add(new Action.PostRun(client, plan.runRequest(plan.client(client), target, 0)));
                }
                notices.add(Notice.normal("Arming", "arming " + idle.size() + " client" + (idle.size() == 1 ? "" : "s")
                        + " (connecting to " + target + ")"));
                return decide(Duration.ZERO);
            }
            if (!arming.isEmpty()) {
                var podsReady = RunConditions.find(status.conditions, RunConditions.PODS_READY);
                Instant readySince = Instant.parse(podsReady.getLastTransitionTime());
                if (!now.isBefore(readySince.plus(ARM_LIMIT))) {
                    return fail(RunConditions.READY, "ClientNotArmed", "clients " + arming + " were not armed (connected to "
                            + target(plan, server) + ") " + ARM_LIMIT.toSeconds() + " s after every pod was ready");
                }
                condition(RunConditions.READY, UNKNOWN, "Arming", (plan.clients().size() - arming.size()) + " of "
                        + plan.clients().size() + " clients armed");
                return decide(NEXT_STEP);
            }
            Duration slowestAnswer = Duration.ofNanos(slowestAnswerNanos);
            if (status.startAtEpochMs == null) {
                return scheduleStart(plan, slowestAnswer, Duration.ZERO);
            }
            if (toStart.isEmpty()) {
                return loadScheduled(plan, server);
            }
            if (now.toEpochMilli() > status.startAtEpochMs - BARRIER_MARGIN.toMillis()) {
                notices.add(Notice.normal("Rescheduled", toStart + " had not taken startAt " + Instant.ofEpochMilli(status.startAtEpochMs)
                        + " " + BARRIER_MARGIN.toMillis() + " ms before it; a later one is set"));
                return scheduleStart(plan, slowestAnswer, Duration.ZERO);
            }
            for (String client : toStart) {
                actions.add(new Action.PostStart(client, status.startAtEpochMs));
            }
            return decide(Duration.ZERO);
        }

        /** The answers to the posted start: a start that had passed is replaced by a later one; a client that began elsewhere fails the run. */
        private Optional<Decision> startRefused(RunPlan plan, Map<String, AgentAnswer<RunReport>> starts) {
            long slowestAnswerNanos = starts.values().stream().mapToLong(AgentAnswer::answerNanos).max().orElse(0);
            for (Map.Entry<String, AgentAnswer<RunReport>> start : starts.entrySet()) {
                AgentAnswer<RunReport> answer = start.getValue();
                if (answer.unreachable()) {
                    return Optional.of(unreachable(start.getKey(), answer.error(), NEXT_STEP));
                }
                if (answer.refused() && answer.statusCode() == AgentContract.RUN_START_PASSED) {
                    Duration late = Duration.ofMillis(Math.max(0, now.toEpochMilli() - status.startAtEpochMs));
                    notices.add(Notice.normal("Rescheduled", start.getKey() + " found startAt " + Instant.ofEpochMilli(status.startAtEpochMs)
                            + " passed on arrival (" + answer.error() + "); a later one is set"));
                    return Optional.of(scheduleStart(plan, Duration.ofNanos(slowestAnswerNanos), late.multipliedBy(2)));
                }
                if (answer.refused() && answer.statusCode() == AgentContract.RUN_ALREADY_TAKEN) {
                    return Optional.of(fail(RunConditions.READY, "BarrierMissed", start.getKey() + " refused startAt "
                            + Instant.ofEpochMilli(status.startAtEpochMs) + ": " + answer.error() + "; the run cannot start together"));
                }
                if (answer.refused()) {
                    return Optional.of(fail(RunConditions.READY, "ClientRefusedRun", start.getKey() + " refused the start: " + answer.error()));
                }
            }
            return Optional.empty();
        }

        /**
         * Chooses {@code startAt}: the plan's lead for the slowest answer just measured, plus {@code extraLead} (twice
         * how late a refused start was), on a period boundary. It is kept before anyone is told of it.
         */
        private Decision scheduleStart(RunPlan plan, Duration slowestAnswer, Duration extraLead) {
            long startAt = plan.startAtEpochMs(now.toEpochMilli(), plan.startLead(slowestAnswer).plus(extraLead));
            long windowStart = startAt + plan.warmup().toMillis();
            status.startAtEpochMs = startAt;
            status.startAt = Instant.ofEpochMilli(startAt).toString();
            status.window = new RunResult.Window(windowStart, windowStart + plan.duration().toMillis());
            condition(RunConditions.READY, UNKNOWN, "Starting", "every client armed; the load starts at " + status.startAt);
            return decide(NEXT_STEP);   // startAt is kept before anyone is told of it
        }

        private Decision loadScheduled(RunPlan plan, RoleObservation server) {
            status.phase = Phase.WarmingUp;
            condition(RunConditions.READY, UNKNOWN, "WarmingUp", "load starts at " + Instant.ofEpochMilli(status.startAtEpochMs));
            notices.add(Notice.normal("LoadScheduled", plan.load() + " req/s against " + target(plan, server) + " from " + Instant.ofEpochMilli(status.startAtEpochMs) + "; measured "
                    + Instant.ofEpochMilli(status.window.startEpochMs) + " to " + Instant.ofEpochMilli(status.window.endEpochMs)));
            return decide(POLL);
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
                AgentAnswer<RunReport> answer = seen.report(role.name());
                if (!answer.answered()) {
                    return unreachable(role.name(), answer.error(), POLL);
                }
                RunReport report = answer.value();
                if (report.state() == RunReport.State.FAILED) {
                    return fail(RunConditions.READY, "ClientFailed", role.name() + " (" + seen.client(role.name()).name()
                            + ") failed: " + report.failure());
                }
                if (report.state() == RunReport.State.WAITING && now.toEpochMilli() > status.startAtEpochMs + startGrace(plan).toMillis()) {
                    return fail(RunConditions.READY, "ClientNotStarted", role.name() + " (" + seen.client(role.name()).name()
                            + ") had not started sending " + startGrace(plan).toSeconds() + " s after startAt "
                            + Instant.ofEpochMilli(status.startAtEpochMs));
                }
                allDone &= report.state() == RunReport.State.DONE;
                offered += report.offeredRateOrZero();
                achieved += report.achievedRateOrZero();
                errors += report.errorsOrZero();
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

        Decision collecting(RunPlan plan, Observations seen, Outcomes outcomes) {
            if (outcomes.collection().isEmpty()) {
                Optional<Decision> gone = failOnLostRoles(plan, seen);
                if (gone.isPresent()) {
                    return gone.get();
                }
                actions.add(new Action.Collect(status.window.startEpochMs, status.window.endEpochMs));
                return decide(Duration.ZERO);
            }
            Outcomes.Collection collection = outcomes.collection().get();
            if (collection.unanswered()) {
                return unreachable("collecting", collection.failure(), POLL);
            }
            if (collection.failure() != null) {
                return fail(RunConditions.READY, "CollectionFailed", "collecting the histograms failed: " + collection.failure());
            }
            Analysis.Outcome outcome = Analysis.analyze(collection.collected().input());
            RunResult result = outcome.result();
            List<String> pinning = pinningProblems(plan.server().measure());
            if (!pinning.isEmpty()) {
                result.verdict = Verdict.Invalid;
                pinning.forEach(p -> result.reasons.add("placement asked for pinned CPUs, but " + p));
            }
            result.warnings.addAll(unverifiedPinning(plan.server().measure()));
            // what ran, by digest, where a status can keep it: each pod's image as the node ran it
            for (BenchmarkRunStatus.PodStatus pod : status.pods) {
                RunCollector.Placed placed = collection.collected().placed().get(pod.role);
                if (placed != null) {
                    pod.image = placed.image();
                    pod.imageId = placed.imageId();
                }
            }
            ResultDocument document = ResultDocument.of(plan, collection.collected(), outcome, List.of());
            status.result = document.result();
            status.phase = Phase.Succeeded;
            status.completionTime = now.toString();
            String summary = summary(result);
            String verdictReason = "Verdict" + result.verdict;
            condition(RunConditions.READY, TRUE, verdictReason, summary);
            condition(RunConditions.FINISHED, TRUE, "Succeeded", "the run was carried out; " + summary);
            condition(RunConditions.COMPLETE, TRUE, verdictReason, summary);
            condition(RunConditions.PASSED, result.verdict == Verdict.Passed ? TRUE : FALSE, verdictReason,
                    result.verdict == Verdict.Passed ? summary : String.join("; ", result.reasons));
            Map<String, String> files = new LinkedHashMap<>(collection.collected().rawLogs());
            files.putAll(ResultDocument.percentileDistributions(collection.collected()));
            actions.add(new Action.Publish(document, files));
            if (result.verdict == Verdict.Passed) {
                notices.add(Notice.normal("Succeeded", summary));
            } else {
                notices.add(Notice.warning(verdictReason, summary + ": " + String.join("; ", result.reasons)));
            }
            return decide(Duration.ZERO);   // the next step cleans up
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
                actions.add(new Action.DeleteRun("ttlSecondsAfterFinished " + ttl.toSeconds() + " passed"));
                return decide(null);
            }
            return decide(left.plusMillis(100));
        }

        Decision fail(String type, String reason, String message) {
            status.phase = Phase.Failed;
            status.completionTime = now.toString();
            condition(type, FALSE, reason, message);
            if (!RunConditions.READY.equals(type)) {
                condition(RunConditions.READY, FALSE, reason, message);
            }
            condition(RunConditions.FINISHED, TRUE, "Failed", message);
            condition(RunConditions.FAILED, TRUE, reason, message);
            condition(RunConditions.PASSED, FALSE, reason, "the run could not be completed: " + message);
            notices.add(Notice.warning(reason, message));
            return decide(Duration.ZERO);   // the final step cleans up
        }

        /** WarmingUp, Measuring, Collecting: every role must still be there and well. */
        private Optional<Decision> failOnLostRoles(RunPlan plan, Observations seen) {
            List<RoleObservation> roles = new ArrayList<>();
            roles.add(seen.server());
            if (plan.server().measure().probe()) {
                roles.add(seen.probe());
            }
            plan.clients().forEach(c -> roles.add(seen.client(c.name())));
            for (RoleObservation role : roles) {
                if (role.is(ABSENT)) {
                    return Optional.of(fail(RunConditions.PODS_READY, "PodDeleted", role.name() + " was deleted during the run"));
                }
                if (role.is(FAILED)) {
                    return Optional.of(fail(RunConditions.PODS_READY, role.reason(), role.message()));
                }
            }
            return Optional.empty();
        }

        private Decision waitFor(List<RoleObservation> roles, String waiting) {
            Optional<RoleObservation> problem = roles.stream().filter(RoleObservation::hasProblem).findFirst();
            if (problem.isPresent()) {
                if (condition(RunConditions.PODS_READY, FALSE, problem.get().reason(), problem.get().message())) {
                    notices.add(Notice.warning(problem.get().reason(), problem.get().message()));
                }
            } else {
                condition(RunConditions.PODS_READY, FALSE, "Waiting", waiting);
            }
            return decide(POLL);
        }

        /**
         * An agent that did not answer: a condition and a warning, and the step again later; once the run needs it
         * and it has been silent for {@link #AGENT_UNREACHABLE_LIMIT}, the run fails naming it.
         */
        private Decision unreachable(String role, String error, Duration retry) {
            if (condition(RunConditions.AGENTS_REACHABLE, FALSE, "AgentUnreachable", role + ": " + error)) {
                notices.add(Notice.warning("AgentUnreachable", role + ": " + error));
            }
            Instant silentSince = Instant.parse(RunConditions.find(status.conditions, RunConditions.AGENTS_REACHABLE).getLastTransitionTime());
            boolean loadUnderway = (status.phase == Phase.WarmingUp || status.phase == Phase.Measuring)
                    && status.window != null && now.toEpochMilli() < status.window.endEpochMs;
            if (loadUnderway) {
                return decide(retry);
            }
            Instant neededSince = status.window != null && status.phase != Phase.Starting
                    ? max(silentSince, Instant.ofEpochMilli(status.window.endEpochMs)) : silentSince;
            Duration silent = Duration.between(neededSince, now);
            if (silent.compareTo(AGENT_UNREACHABLE_LIMIT) >= 0) {
                return fail(RunConditions.AGENTS_REACHABLE, "AgentUnreachable", role + ": no answer for "
                        + Duration.between(silentSince, now).toSeconds() + " s (limit " + AGENT_UNREACHABLE_LIMIT.toSeconds()
                        + " s once the run needs it): " + error);
            }
            return decide(retry);
        }

        private static Instant max(Instant a, Instant b) {
            return a.isAfter(b) ? a : b;
        }

        /** How long after {@code startAt} a client may still be waiting to start: 5 s, or two periods. */
        private static Duration startGrace(RunPlan plan) {
            Duration twoPeriods = plan.samplePeriod().multipliedBy(2);
            return twoPeriods.compareTo(CLIENT_START_GRACE) > 0 ? twoPeriods : CLIENT_START_GRACE;
        }

        private static String target(RunPlan plan, RoleObservation server) {
            return "http://" + server.address() + ":" + (server.port() != null ? server.port() : plan.server().port());
        }

        /** A role's pod; {@code info} is {@code null} for a server nobody measures. */
        private BenchmarkRunStatus.PodStatus podStatus(RoleObservation role, String roleName, AgentInfo info) {
            if (info == null) {
                BenchmarkRunStatus.PodStatus pod = new BenchmarkRunStatus.PodStatus(role.name(), roleName, role.node(), null);
                pod.podIP = role.address();
                pod.cpusRequested = role.cpusRequested();
                pod.exclusiveCpus = role.askedExclusiveCpus();
                pod.measuredBy = Measure.NONE.spec();
                return pod;
            }
            BenchmarkRunStatus.PodStatus pod = new BenchmarkRunStatus.PodStatus(role.name(), roleName, role.node(), info.cpuset());
            pod.podIP = role.address();
            pod.cpusRequested = role.cpusRequested();
            if (role.askedExclusiveCpus() != null) {
                pod.pinned = Pinning.problems(List.of(new Pinning.Asked(role.name(), role.askedExclusiveCpus(), info.cpuset()))).isEmpty();
                pod.exclusiveCpus = role.askedExclusiveCpus();
            }
            pod.measuredBy = info.measuredBy();
            return pod;
        }

        private List<String> pinningProblems(Measure measure) {
            List<Pinning.Asked> asked = status.pods.stream().filter(p -> p.exclusiveCpus != null)
                    .filter(p -> p.cpuset != null || !cpusetUnknowable(p, measure))
                    .map(p -> new Pinning.Asked(p.name, p.exclusiveCpus, p.cpuset)).toList();
            return Pinning.problems(asked);
        }

        /**
         * A server without the agent may not be able to report its cpuset: nobody measures it, or the kernel probe
         * watches it from another pod. Its pinning is then the platform's word (taskset, the kubelet), said as a
         * warning of the result rather than made a reason to distrust it.
         */
        private static boolean cpusetUnknowable(BenchmarkRunStatus.PodStatus pod, Measure measure) {
            return AgentContract.ROLE_SERVER.equals(pod.role) && !measure.agent();
        }

        private List<String> unverifiedPinning(Measure measure) {
            return status.pods.stream().filter(p -> p.exclusiveCpus != null && p.cpuset == null && cpusetUnknowable(p, measure))
                    .map(p -> "pod " + p.name + " asked for " + p.exclusiveCpus + " exclusive CPU" + (p.exclusiveCpus == 1 ? "" : "s")
                            + "; measured without its agent (" + p.measuredBy + "), it could not report its cpuset, so its pinning was not verified")
                    .toList();
        }

        private boolean condition(String type, String conditionStatus, String reason, String message) {
            return RunConditions.set(status.conditions, type, conditionStatus, reason, message, now);
        }

        private Decision decide(Duration recheckAfter) {
            return new Decision(status, actions, notices, recheckAfter);
        }
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
