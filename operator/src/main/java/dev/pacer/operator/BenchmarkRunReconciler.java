package dev.pacer.operator;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunSpec;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunValidation;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.MetricsText;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.Analysis;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.operator.access.AgentAccess;
import dev.pacer.operator.dependent.PodFactory;
import dev.pacer.operator.dependent.ServiceFactory;
import dev.pacer.operator.pods.Pinning;
import dev.pacer.operator.pods.PodProblem;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a BenchmarkRun through its phases ({@link Phase}). Each step reads the status alone and is idempotent, so an
 * operator restarted at any point resumes the run; no step waits in the reconcile thread — it reschedules instead.
 * <ol>
 *   <li>Pending: the spec is checked with the CLI's rules (SpecValid=False names every field); the server's headless
 *       Service and pod are created → Starting.</li>
 *   <li>Starting: pod problems become the PodsReady condition and events (unschedulable, image pull, …; a failed or
 *       deleted pod fails the run). Once the server is ready, the client pods are created; once every pod is ready,
 *       every agent's info gives {@code status.pods} (node, effective cpuset, pinned or not). Then one
 *       {@code startAt} is written to the status and, in the next step, posted to every client (the barrier; a
 *       restarted operator posts the same one, and a client that already took it answers 409) → WarmingUp.</li>
 *   <li>WarmingUp, Measuring: the clients' reports become {@code status.progress}; a client that fails or a pod that
 *       goes away fails the run, naming it; once every client is done and the window has closed → Collecting.</li>
 *   <li>Collecting: every histogram log and info is fetched, analysed by the engine, and written to
 *       {@code status.result}; when pinning was asked for and did not happen, the verdict is Invalid → Succeeded.</li>
 *   <li>Succeeded, Failed: pods are deleted as {@code spec.cleanup.pods} says; the run itself after
 *       {@code ttlSecondsAfterFinished}.</li>
 * </ol>
 * {@code spec.timeout}, counted from the run's creation, fails any unfinished phase.
 */
@ControllerConfiguration(name = BenchmarkRunReconciler.NAME)
public class BenchmarkRunReconciler implements Reconciler<BenchmarkRun> {
    public static final String NAME = "benchmarkrun";
    static final Duration POLL = Duration.ofSeconds(2);
    static final Duration NEXT_STEP = Duration.ofMillis(200);
    /** The least time between posting the barrier and {@code startAt}: posting to each client takes a round trip. */
    static final Duration START_LEAD = Duration.ofSeconds(3);
    static final Duration START_LEAD_PER_CLIENT = Duration.ofMillis(250);
    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkRunReconciler.class);

    private final AgentAccess access;
    private volatile IndexedResourceCache<BenchmarkRun> runs;

    public BenchmarkRunReconciler() {
        this(AgentAccess.POD_IP);
    }

    public BenchmarkRunReconciler(AgentAccess access) {
        this.access = access;
    }

    /** The runs in the operator's cache (for the metrics); empty until the first reconcile. */
    public Collection<BenchmarkRun> heldRuns() {
        IndexedResourceCache<BenchmarkRun> cache = runs;
        return cache == null ? List.of() : cache.list().toList();
    }

    @Override
    public List<EventSource<?, BenchmarkRun>> prepareEventSources(EventSourceContext<BenchmarkRun> context) {
        // the run's pods, found by their owner reference: a pod changing (scheduled, pulled, ready, failed, deleted)
        // reconciles its run at once instead of at the next poll
        var pods = InformerEventSourceConfiguration.from(Pod.class, BenchmarkRun.class)
                .withLabelSelector("app.kubernetes.io/managed-by=" + PodFactory.MANAGED_BY)
                .build();
        return List.of(new InformerEventSource<>(pods, context));
    }

    @Override
    public UpdateControl<BenchmarkRun> reconcile(BenchmarkRun run, Context<BenchmarkRun> context) {
        runs = context.getPrimaryCache();
        Step step = new Step(run, context);
        if (step.phase.isFinal()) {
            return step.finished();
        }
        RunPlan plan;
        try {
            plan = RunPlanner.plan(run);
        } catch (RunPlanner.InvalidPlanException e) {
            return step.fail(RunConditions.SPEC_VALID, "InvalidSpec", describe(e.problems()));
        }
        step.status.load = plan.load();
        if (timedOut(run, plan)) {
            return step.fail(RunConditions.READY, "Timeout",
                    "spec.timeout " + plan.timeout().toSeconds() + " s passed in phase " + step.phase);
        }
        return switch (step.phase) {
            case Pending -> step.pending(plan);
            case Starting -> step.starting(plan);
            case WarmingUp, Measuring, Collecting -> step.withLivePods(plan);
            default -> UpdateControl.noUpdate();
        };
    }

    @Override
    public ErrorStatusUpdateControl<BenchmarkRun> updateErrorStatus(BenchmarkRun run, Context<BenchmarkRun> context, Exception e) {
        BenchmarkRunStatus status = run.getStatus() == null ? new BenchmarkRunStatus() : run.getStatus();
        LOG.warn("reconcile of {}/{} failed; retrying", run.getMetadata().getNamespace(), run.getMetadata().getName(), e);
        RunConditions.set(status.conditions, RunConditions.READY, "Unknown", "ReconcileError",
                e.getClass().getSimpleName() + ": " + e.getMessage(), generation(run));
        return ErrorStatusUpdateControl.patchStatus(forStatus(run, status));
    }

    /** One reconcile of one run: the run, its status being built, its pods from the cache. */
    private final class Step {
        final BenchmarkRun run;
        final Context<BenchmarkRun> context;
        final KubernetesClient client;
        final RunEvents events;
        final BenchmarkRunStatus status;
        final Phase phase;
        final String namespace;

        Step(BenchmarkRun run, Context<BenchmarkRun> context) {
            this.run = run;
            this.context = context;
            this.client = context.getClient();
            this.events = new RunEvents(client);
            this.status = run.getStatus() == null ? new BenchmarkRunStatus() : run.getStatus();
            this.phase = status.phase == null ? Phase.Pending : status.phase;
            this.namespace = run.getMetadata().getNamespace();
        }

        UpdateControl<BenchmarkRun> pending(RunPlan plan) {
            RunConditions.set(status.conditions, RunConditions.SPEC_VALID, "True", "Accepted", "the spec is valid", generation(run));
            createIfAbsent(ServiceFactory.serverService(run, plan));
            Pod server = PodFactory.serverPod(run, plan);
            createIfAbsent(server);
            status.phase = Phase.Starting;
            RunConditions.set(status.conditions, RunConditions.READY, "Unknown", "Starting",
                    "server pod " + server.getMetadata().getName() + " created", generation(run));
            events.normal(run, "Starting", "created server pod " + server.getMetadata().getName() + " (" + plan.server().image() + ")");
            return patch().rescheduleAfter(POLL);
        }

        UpdateControl<BenchmarkRun> starting(RunPlan plan) {
            Map<String, Pod> pods = pods();
            String serverName = PodFactory.serverPodName(run);
            Pod server = pods.get(serverName);
            if (server == null && (server = fromApi(serverName)) == null) {
                return fail(RunConditions.PODS_READY, "PodDeleted", "server pod " + serverName + " was deleted");
            }
            Optional<UpdateControl<BenchmarkRun>> failed = failOnPodProblems(pods.values());
            if (failed.isPresent()) {
                return failed.get();
            }
            if (!PodProblem.isReady(server)) {
                return waitForPods(pods.values(), "waiting for server pod " + serverName + " to become ready");
            }
            List<Pod> clientPods = new ArrayList<>();
            for (RunPlan.ClientRole role : plan.clients()) {
                Pod desired = PodFactory.clientPod(run, plan, role);
                Pod existing = pods.get(desired.getMetadata().getName());
                if (existing == null) {
                    createIfAbsent(desired);
                } else {
                    clientPods.add(existing);
                }
            }
            if (clientPods.size() < plan.clients().size() || !clientPods.stream().allMatch(PodProblem::isReady)) {
                long ready = clientPods.stream().filter(PodProblem::isReady).count();
                return waitForPods(pods.values(), ready + " of " + plan.clients().size() + " client pods ready");
            }
            setCondition(RunConditions.PODS_READY, "True", "PodsReady", "server and " + clientPods.size() + " client pods ready");
            Agents agents = agents(plan, server, clientPods);
            try {
                status.pods = podStatuses(plan, server, clientPods, agents);
            } catch (IOException e) {
                setCondition(RunConditions.AGENTS_REACHABLE, "False", "AgentUnreachable", e.getMessage());
                return patch().rescheduleAfter(POLL);
            }
            setCondition(RunConditions.AGENTS_REACHABLE, "True", "AgentsAnswer", "every agent answers");
            List<String> pinning = pinningProblems();
            if (!pinning.isEmpty()) {
                setCondition(RunConditions.CPUS_PINNED, "False", "NotPinned", String.join("; ", pinning));
            } else if (status.pods.stream().anyMatch(p -> p.pinned != null)) {
                setCondition(RunConditions.CPUS_PINNED, "True", "Pinned", "every pinned pod holds exclusive CPUs of the number it asked for");
            }
            long now = System.currentTimeMillis();
            Duration lead = START_LEAD.plus(START_LEAD_PER_CLIENT.multipliedBy(plan.clients().size()));
            if (status.startAtEpochMs == null) {
                return scheduleStart(plan, now, lead);
            }
            // the barrier is in the status: post it to every client that has not taken it yet
            List<String> idle = new ArrayList<>();
            try {
                for (Map.Entry<String, AgentClient> client : agents.clients().entrySet()) {
                    if ("idle".equals(String.valueOf(client.getValue().runStatus().get("state")))) {
                        idle.add(client.getKey());
                    }
                }
            } catch (IOException e) {
                setCondition(RunConditions.AGENTS_REACHABLE, "False", "AgentUnreachable", e.getMessage());
                return patch().rescheduleAfter(POLL);
            }
            if (!idle.isEmpty() && now > status.startAtEpochMs - 500) {
                if (idle.size() == plan.clients().size()) {
                    return scheduleStart(plan, now, lead);   // nobody took the old one: a new barrier
                }
                return fail(RunConditions.READY, "BarrierMissed", "clients " + idle + " had not taken startAt "
                        + Instant.ofEpochMilli(status.startAtEpochMs) + " when it came; the others had: the run cannot start together");
            }
            String target = "http://" + AgentAccess.hostOf(server) + ":" + plan.server().port();
            BenchmarkRunSpec.HttpRequest request = run.getSpec().request == null ? new BenchmarkRunSpec.HttpRequest() : run.getSpec().request;
            for (RunPlan.ClientRole role : plan.clients()) {
                if (!idle.contains(role.name())) {
                    continue;
                }
                try {
                    agents.clients().get(role.name()).postRun(plan.runRequest(role, target, status.startAtEpochMs,
                            request.method == null ? "GET" : request.method, request.path == null ? "/" : request.path,
                            request.headers == null ? Map.of() : request.headers, request.body == null ? "" : request.body,
                            RunPlanner.requestTimeout(run.getSpec())));
                } catch (AgentClient.AgentException e) {
                    if (e.statusCode() != 409) {   // 409: it took this run already
                        return fail(RunConditions.READY, "ClientRefusedRun", role.name() + " refused the run: " + e.getMessage());
                    }
                } catch (IOException e) {
                    setCondition(RunConditions.AGENTS_REACHABLE, "False", "AgentUnreachable", e.getMessage());
                    return patch().rescheduleAfter(NEXT_STEP);
                }
            }
            status.phase = Phase.WarmingUp;
            setCondition(RunConditions.READY, "Unknown", "WarmingUp", "load starts at " + Instant.ofEpochMilli(status.startAtEpochMs));
            events.normal(run, "LoadScheduled", plan.load() + " req/s against " + target + " from "
                    + Instant.ofEpochMilli(status.startAtEpochMs) + "; measured " + Instant.ofEpochMilli(status.window.startEpochMs)
                    + " to " + Instant.ofEpochMilli(status.window.endEpochMs));
            return patch().rescheduleAfter(POLL);
        }

        private UpdateControl<BenchmarkRun> scheduleStart(RunPlan plan, long now, Duration lead) {
            long startAt = plan.startAtEpochMs(now, lead);
            long windowStart = startAt + plan.warmup().toMillis();
            status.startAtEpochMs = startAt;
            status.window = new RunResult.Window(windowStart, windowStart + plan.duration().toMillis());
            return patch().rescheduleAfter(NEXT_STEP);
        }

        /** WarmingUp, Measuring, Collecting: every pod must still be there and well, then the phase's step. */
        UpdateControl<BenchmarkRun> withLivePods(RunPlan plan) {
            Map<String, Pod> pods = pods();
            Optional<UpdateControl<BenchmarkRun>> gone = failOnMissingOrBrokenPods(plan, pods);
            if (gone.isPresent()) {
                return gone.get();
            }
            Agents agents = agentsOf(plan, pods);
            return phase == Phase.Collecting ? collecting(plan, agents) : running(plan, agents);
        }

        private UpdateControl<BenchmarkRun> running(RunPlan plan, Agents agents) {
            boolean allDone = true;
            BenchmarkRunStatus.Progress progress = new BenchmarkRunStatus.Progress();
            double offered = 0;
            double achieved = 0;
            long errors = 0;
            try {
                for (RunPlan.ClientRole role : plan.clients()) {
                    Map<String, Object> report = agents.clients().get(role.name()).runStatus();
                    String state = String.valueOf(report.get("state"));
                    if ("failed".equals(state)) {
                        return fail(RunConditions.READY, "ClientFailed", role.name() + " (pod " + PodFactory.clientPodName(run, role)
                                + ") failed: " + report.get("failure"));
                    }
                    allDone &= "done".equals(state);
                    offered += number(report.get("offeredRate"));
                    achieved += number(report.get("achievedRate"));
                    errors += (long) number(report.get("errors"));
                }
                setCondition(RunConditions.AGENTS_REACHABLE, "True", "AgentsAnswer", "every agent answers");
            } catch (IOException e) {
                setCondition(RunConditions.AGENTS_REACHABLE, "False", "AgentUnreachable", e.getMessage());
                return patch().rescheduleAfter(POLL);
            }
            long now = System.currentTimeMillis();
            long startAt = status.startAtEpochMs;
            progress.elapsedSeconds = Math.max(0, now - startAt) / 1000.0;
            progress.totalSeconds = (status.window.endEpochMs - startAt) / 1000.0;
            progress.offeredRate = offered;
            progress.achievedRate = achieved;
            progress.errors = errors;
            progress.updated = Instant.ofEpochMilli(now).toString();
            try {
                MetricsText.value(agents.server().metricsText(), "pacer_period_latency_seconds", "stat", "p99")
                        .ifPresent(p99 -> progress.serverLastPeriodP99Micros = Math.round(p99 * 1e6));
            } catch (IOException e) {
                // a server without the agent contract has no live figure; the run goes on
            }
            status.progress = progress;
            if (allDone && now >= status.window.endEpochMs + plan.samplePeriod().toMillis() / 4) {
                status.phase = Phase.Collecting;
                setCondition(RunConditions.READY, "Unknown", "Collecting", "collecting histograms from " + (plan.clients().size() + 1) + " agents");
                return patch().rescheduleAfter(Duration.ZERO);
            }
            Phase next = now < status.window.startEpochMs ? Phase.WarmingUp : Phase.Measuring;
            if (next != phase) {
                events.normal(run, "Measuring", "warm-up over; measuring until " + Instant.ofEpochMilli(status.window.endEpochMs));
            }
            status.phase = next;
            setCondition(RunConditions.READY, "Unknown", next.name(), String.format(java.util.Locale.ROOT,
                    "%.0f of %.0f s; achieved %.0f of %.0f req/s", progress.elapsedSeconds, progress.totalSeconds, achieved, offered));
            return patch().rescheduleAfter(POLL);
        }

        private UpdateControl<BenchmarkRun> collecting(RunPlan plan, Agents agents) {
            Analysis.Outcome outcome;
            try {
                RunCollector.Collected collected = RunCollector.collect(plan, agents.server(), agents.clients(),
                        status.window.startEpochMs, status.window.endEpochMs);
                outcome = Analysis.analyze(collected.input());
            } catch (IOException e) {
                return fail(RunConditions.READY, "CollectionFailed", "collecting the histograms failed: " + e.getMessage());
            }
            RunResult result = outcome.result();
            if (result.server != null && result.server.histogramsAvailable) {
                result.server.periodP99Micros = outcome.periods().stream().filter(p -> p.server() != null).map(p -> p.server().p99Micros()).toList();
                result.server.periodMaxMicros = outcome.periods().stream().filter(p -> p.server() != null).map(p -> p.server().maxMicros()).toList();
            }
            List<String> pinning = pinningProblems();
            if (!pinning.isEmpty()) {
                result.verdict = Verdict.Invalid;
                pinning.forEach(p -> result.reasons.add("placement asked for pinned CPUs, but " + p));
            }
            status.result = result;
            status.phase = Phase.Succeeded;
            status.completionTime = Instant.now().toString();
            String summary = summary(result);
            setCondition(RunConditions.READY, "True", "Verdict" + result.verdict, summary);
            if (result.verdict == Verdict.Passed) {
                events.normal(run, "Succeeded", summary);
            } else {
                events.warning(run, "Verdict" + result.verdict, summary + ": " + String.join("; ", result.reasons));
            }
            return patch().rescheduleAfter(Duration.ZERO);
        }

        /** Cleanup of the pods as the policy says, then the TTL of the run itself. */
        UpdateControl<BenchmarkRun> finished() {
            String policy = run.getSpec() == null || run.getSpec().cleanup == null || run.getSpec().cleanup.pods == null
                    ? "OnSuccess" : run.getSpec().cleanup.pods;
            boolean trustworthySuccess = phase == Phase.Succeeded && status.result != null && status.result.verdict != Verdict.Invalid;
            boolean delete = "Always".equals(policy) || ("OnSuccess".equals(policy) && trustworthySuccess);
            if (delete && !pods().isEmpty()) {
                client.pods().inNamespace(namespace).withLabel(PodFactory.LABEL_RUN, run.getMetadata().getName()).delete();
                client.services().inNamespace(namespace).withName(ServiceFactory.serviceName(run)).delete();
                events.normal(run, "PodsDeleted", "pods deleted (spec.cleanup.pods: " + policy + ")");
            }
            Long ttl = run.getSpec() == null || run.getSpec().cleanup == null ? null : run.getSpec().cleanup.ttlSecondsAfterFinished;
            if (ttl == null || status.completionTime == null) {
                return UpdateControl.noUpdate();
            }
            Instant expiry = Instant.parse(status.completionTime).plusSeconds(ttl);
            Duration left = Duration.between(Instant.now(), expiry);
            if (left.isNegative() || left.isZero()) {
                LOG.info("deleting {}/{}: ttlSecondsAfterFinished {} passed", namespace, run.getMetadata().getName(), ttl);
                client.resource(run).delete();
                return UpdateControl.noUpdate();
            }
            return UpdateControl.<BenchmarkRun>noUpdate().rescheduleAfter(left.plusMillis(100));
        }

        UpdateControl<BenchmarkRun> fail(String type, String reason, String message) {
            status.phase = Phase.Failed;
            status.completionTime = Instant.now().toString();
            RunConditions.set(status.conditions, type, "False", reason, message, generation(run));
            if (!RunConditions.READY.equals(type)) {
                RunConditions.set(status.conditions, RunConditions.READY, "False", reason, message, generation(run));
            }
            events.warning(run, reason, message);
            LOG.info("run {}/{} failed: {}: {}", namespace, run.getMetadata().getName(), reason, message);
            return patch().rescheduleAfter(Duration.ZERO);   // the final step cleans up
        }

        private UpdateControl<BenchmarkRun> waitForPods(Collection<Pod> pods, String waiting) {
            Optional<PodProblem> problem = pods.stream().map(PodProblem::of).flatMap(Optional::stream).findFirst();
            if (problem.isPresent()) {
                if (setCondition(RunConditions.PODS_READY, "False", problem.get().reason(), problem.get().message())) {
                    events.warning(run, problem.get().reason(), problem.get().message());
                }
            } else {
                setCondition(RunConditions.PODS_READY, "False", "Waiting", waiting);
            }
            return patch().rescheduleAfter(POLL);
        }

        private Optional<UpdateControl<BenchmarkRun>> failOnPodProblems(Collection<Pod> pods) {
            return pods.stream().map(PodProblem::of).flatMap(Optional::stream).filter(PodProblem::fatal).findFirst()
                    .map(p -> fail(RunConditions.PODS_READY, p.reason(), p.message()));
        }

        private Optional<UpdateControl<BenchmarkRun>> failOnMissingOrBrokenPods(RunPlan plan, Map<String, Pod> pods) {
            List<String> names = new ArrayList<>();
            names.add(PodFactory.serverPodName(run));
            plan.clients().forEach(c -> names.add(PodFactory.clientPodName(run, c)));
            for (String name : names) {
                if (!pods.containsKey(name)) {
                    Pod pod = fromApi(name);
                    if (pod == null) {
                        return Optional.of(fail(RunConditions.PODS_READY, "PodDeleted", "pod " + name + " was deleted during the run"));
                    }
                    pods.put(name, pod);
                }
            }
            return failOnPodProblems(pods.values());
        }

        private List<String> pinningProblems() {
            List<Pinning.Asked> asked = status.pods.stream().filter(p -> p.pinned != null)
                    .map(p -> new Pinning.Asked(p.name, Long.parseLong(p.cpusRequested), p.cpuset)).toList();
            return Pinning.problems(asked);
        }

        private List<BenchmarkRunStatus.PodStatus> podStatuses(RunPlan plan, Pod server, List<Pod> clientPods, Agents agents) throws IOException {
            List<BenchmarkRunStatus.PodStatus> statuses = new ArrayList<>();
            boolean pinServer = BenchmarkRunValidation.pinsServer(run.getSpec());
            statuses.add(podStatus(server, PodFactory.ROLE_SERVER, agents.server(), pinServer, plan.server().cpuMillis()));
            boolean pinClients = BenchmarkRunValidation.pinsClients(run.getSpec());
            for (int i = 0; i < clientPods.size(); i++) {
                RunPlan.ClientRole role = plan.clients().get(i);
                statuses.add(podStatus(clientPods.get(i), role.name(), agents.clients().get(role.name()), pinClients, role.cpuMillis()));
            }
            return statuses;
        }

        private BenchmarkRunStatus.PodStatus podStatus(Pod pod, String role, AgentClient agent, boolean pinned, long cpuMillis) throws IOException {
            Map<String, Object> info = agent.info();
            BenchmarkRunStatus.PodStatus status = new BenchmarkRunStatus.PodStatus(pod.getMetadata().getName(), role,
                    pod.getSpec().getNodeName(), info.get("cpuset") == null ? null : info.get("cpuset").toString());
            status.podIP = pod.getStatus().getPodIP();
            status.cpusRequested = pinned ? Long.toString(cpuMillis / 1000) : cpuMillis + "m";
            if (pinned) {
                status.pinned = Pinning.problems(List.of(new Pinning.Asked(status.name, cpuMillis / 1000, status.cpuset))).isEmpty();
            }
            return status;
        }

        private Agents agentsOf(RunPlan plan, Map<String, Pod> pods) {
            return agents(plan, pods.get(PodFactory.serverPodName(run)),
                    plan.clients().stream().map(c -> pods.get(PodFactory.clientPodName(run, c))).toList());
        }

        private Agents agents(RunPlan plan, Pod server, List<Pod> clientPods) {
            Map<String, AgentClient> clients = new LinkedHashMap<>();
            for (int i = 0; i < plan.clients().size(); i++) {
                clients.put(plan.clients().get(i).name(), access.agent(client, clientPods.get(i), PodFactory.ADMIN_PORT));
            }
            return new Agents(access.agent(client, server, PodFactory.ADMIN_PORT), clients);
        }

        /** The run's pods from the informer's cache, by name. */
        private Map<String, Pod> pods() {
            Map<String, Pod> pods = new LinkedHashMap<>();
            context.getSecondaryResources(Pod.class).forEach(p -> pods.put(p.getMetadata().getName(), p));
            return pods;
        }

        /** A pod the cache does not hold yet, read from the API server (the cache lags behind a create). */
        private Pod fromApi(String name) {
            return client.pods().inNamespace(namespace).withName(name).get();
        }

        private void createIfAbsent(HasMetadata resource) {
            try {
                client.resource(resource).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }

        private boolean setCondition(String type, String conditionStatus, String reason, String message) {
            return RunConditions.set(status.conditions, type, conditionStatus, reason, message, generation(run));
        }

        private UpdateControl<BenchmarkRun> patch() {
            return UpdateControl.patchStatus(forStatus(run, status));
        }
    }

    private record Agents(AgentClient server, Map<String, AgentClient> clients) {
    }

    static String summary(RunResult result) {
        StringBuilder text = new StringBuilder("verdict ").append(result.verdict);
        if (result.server != null && result.server.histogramsAvailable) {
            text.append(String.format(java.util.Locale.ROOT, "; server P99 integral %d µs, max integral %d µs over %d periods",
                    result.server.p99IntegralMicros, result.server.maxIntegralMicros, result.server.samples));
        }
        if (result.clients != null && result.clients.achievedRate != null) {
            text.append(String.format(java.util.Locale.ROOT, "; achieved %.0f of %.0f req/s", result.clients.achievedRate, result.clients.offeredRate));
        }
        return text.toString();
    }

    private static boolean timedOut(BenchmarkRun run, RunPlan plan) {
        String created = run.getMetadata().getCreationTimestamp();
        return created != null && Instant.parse(created).plus(plan.timeout()).isBefore(Instant.now());
    }

    static String describe(List<FieldProblem> problems) {
        return String.join("; ", problems.stream().map(FieldProblem::toString).toList());
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }

    /** A fresh object with only name, namespace and status: the status patch touches nothing else. */
    private static BenchmarkRun forStatus(BenchmarkRun run, BenchmarkRunStatus status) {
        status.observedGeneration = generation(run);
        BenchmarkRun fresh = new BenchmarkRun();
        fresh.setMetadata(new ObjectMetaBuilder().withName(run.getMetadata().getName()).withNamespace(run.getMetadata().getNamespace()).build());
        fresh.setStatus(status);
        return fresh;
    }

    private static Long generation(BenchmarkRun run) {
        return run.getMetadata().getGeneration();
    }
}
