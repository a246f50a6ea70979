package dev.pacer.engine.protocol;

import static dev.pacer.engine.protocol.RoleObservation.Presence.ABSENT;
import static dev.pacer.engine.protocol.RoleObservation.Presence.FAILED;
import static dev.pacer.engine.protocol.RoleObservation.Presence.READY;
import static dev.pacer.engine.protocol.RunConditions.TRUE;
import static dev.pacer.engine.protocol.RunProtocol.NOT_PINNED_FIX;
import static dev.pacer.engine.protocol.RunProtocol.POLL;
import static dev.pacer.engine.protocol.RunProtocol.READY_LIMIT;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Measure;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.engine.agents.ClockOffset;
import dev.pacer.engine.plan.RunPlan;

/**
 * Starting, until every role is ready: a failed or refused pod fails the run; the probe beside a ready server; the
 * clients once the server is ready; every agent's info as {@code status.pods}, and the pinning check. Then
 * {@link ArmingStage}.
 */
final class StartingStage extends ProtocolStep {
    StartingStage(ProtocolStep shared) {
        super(shared);
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
        if (status.pods.isEmpty() || status.pods.stream().anyMatch(p -> p.cpuset == null && !Pinning.cpusetUnknowable(p, plan.server().measure()))) {
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
            List<String> pinning = Pinning.problems(status.pods, plan.server().measure());
            if (!pinning.isEmpty()) {
                // the figures of this run could not be compared with pinned ones: say so now, not as Invalid later
                List<String> nodes = status.pods.stream().filter(p -> Boolean.FALSE.equals(p.pinned)).map(p -> p.node).distinct().toList();
                return fail(RunConditions.CPUS_PINNED, "NotPinned", String.join("; ", pinning) + " (node " + String.join(", ", nodes)
                        + "). " + NOT_PINNED_FIX);
            } else if (status.pods.stream().anyMatch(p -> p.pinned != null)) {
                condition(RunConditions.CPUS_PINNED, TRUE, "Pinned", "every pinned pod holds exclusive CPUs of the number it asked for");
            }
            Optional<Decision> offClock = clocks(plan, seen, roleNames);
            if (offClock.isPresent()) {
                return offClock.get();
            }
        }
        return new ArmingStage(this).armAndStart(plan, server, seen, outcomes);
    }

    /**
     * Every agent's clock against the orchestrator's, into {@code status.pods}, before any load: one too far off fails
     * the run, naming its pod and node ({@link ClockOffset}). An agent that does not serve the clock (an image older
     * than the path) leaves its offset unknown.
     */
    private Optional<Decision> clocks(RunPlan plan, Observations seen, List<String> roleNames) {
        long limitMicros = ClockOffset.limitMicros(plan);
        List<String> problems = new ArrayList<>();
        long largest = 0;
        for (int i = 0; i < status.pods.size(); i++) {
            if (i == 0 && !plan.server().measure().measured()) {
                continue;   // nobody answers for the server
            }
            BenchmarkRunStatus.PodStatus pod = status.pods.get(i);
            AgentAnswer<ClockOffset.Sample> clock = seen.clock(roleNames.get(i));
            if (!clock.answered()) {
                continue;
            }
            pod.clockOffsetMicros = clock.value().offsetMicros();
            pod.clockRoundTripMicros = clock.value().roundTripMicros();
            largest = Math.max(largest, Math.abs(pod.clockOffsetMicros));
            ClockOffset.problem(pod.name, pod.node, clock.value(), limitMicros).ifPresent(problems::add);
        }
        if (!problems.isEmpty()) {
            return Optional.of(fail(RunConditions.CLOCKS_SYNCHRONIZED, "ClockOffset", String.join("; ", problems)));
        }
        condition(RunConditions.CLOCKS_SYNCHRONIZED, TRUE, "Synchronized", String.format(Locale.ROOT,
                "every agent's clock within %.1f ms of the operator's (largest offset %.3f ms)", limitMicros / 1000.0, largest / 1000.0));
        return Optional.empty();
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
}
