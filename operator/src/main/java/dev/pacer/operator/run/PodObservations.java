package dev.pacer.operator.run;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.contract.AgentContract;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.preflight.Preflight;
import dev.pacer.engine.protocol.AgentObservations;
import dev.pacer.engine.protocol.RoleObservation;
import dev.pacer.engine.protocol.RunProtocol;
import dev.pacer.operator.ProbeSettings;
import dev.pacer.operator.access.AgentAccess;
import dev.pacer.operator.pods.PodFactory;
import dev.pacer.operator.pods.PodProblem;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * A run as the operator sees it during one reconcile: its pods from the informer's cache (read from the API server
 * when the cache has not caught up with a create), and its agents by pod IP or the API server's proxy. Each pod and
 * agent answer is read once per reconcile.
 */
public final class PodObservations extends AgentObservations {
    private final BenchmarkRun run;
    private final KubernetesClient client;
    private final AgentAccess access;
    private final ProbeSettings probeSettings;
    private final Collection<BenchmarkRun> allRuns;
    private final int maxActiveRuns;
    private Optional<Pod> probePod;
    private final Map<String, Pod> cached = new LinkedHashMap<>();
    private final Map<String, Optional<Pod>> read = new HashMap<>();
    private final Map<String, AgentClient> agents = new HashMap<>();
    private final Map<String, Optional<String>> nodeLost = new HashMap<>();

    public PodObservations(BenchmarkRun run, RunPlan plan, KubernetesClient client, Set<Pod> cachedPods, AgentAccess access,
                           ProbeSettings probe, Collection<BenchmarkRun> allRuns, int maxActiveRuns) {
        super(plan);
        this.allRuns = allRuns;
        this.maxActiveRuns = maxActiveRuns;
        this.run = run;
        this.client = client;
        this.access = access;
        this.probeSettings = probe;
        cachedPods.forEach(p -> cached.put(p.getMetadata().getName(), p));
    }

    @Override
    public RoleObservation server() {
        boolean pinned = plan.placement().server().pinCpus();
        return observe(PodFactory.serverPodName(run), pinned, plan.server().cpuMillis());
    }

    @Override
    public RoleObservation client(String name) {
        boolean pinned = plan.placement().clients().pinCpus();
        RunPlan.ClientRole role = plan.client(name);
        return observe(PodFactory.clientPodName(run, role), pinned, role.cpuMillis());
    }

    /** The operator's limit of runs at once, over the runs in its cache. */
    @Override
    public Optional<String> waitingFor() {
        return RunQueue.waitingFor(run, allRuns, maxActiveRuns);
    }

    /** The probe pod, read from the API server (it lives in the operator's namespace, outside the pod informer). */
    @Override
    public RoleObservation probe() {
        Optional<Pod> found = probePod();
        return found.isEmpty() ? RoleObservation.absent(PodFactory.probePodName(run)) : observe(found.get(), false, 0);
    }

    /** The agent in a role's pod ({@code server}, {@code client-0}); its pod must exist. */
    @Override
    protected AgentClient processAgent(String role) {
        return agents.computeIfAbsent(role, r -> {
            String podName = AgentContract.ROLE_SERVER.equals(r) ? PodFactory.serverPodName(run) : PodFactory.clientPodName(run, plan.client(r));
            Pod pod = pod(podName).orElseThrow(() -> new IllegalStateException("pod " + podName + " is gone"));
            return access.agent(client, pod, PodFactory.ADMIN_PORT);
        });
    }

    /** The probe's agent contract; its pod must exist. */
    @Override
    protected AgentClient probeAgent() {
        Pod pod = probePod().orElseThrow(() -> new IllegalStateException("the probe pod " + PodFactory.probePodName(run) + " is gone"));
        return access.agent(client, pod, PodFactory.ADMIN_PORT);
    }

    private Optional<Pod> probePod() {
        if (probePod == null) {
            probePod = Optional.ofNullable(client.pods().inNamespace(probeSettings.namespace()).withName(PodFactory.probePodName(run)).get());
        }
        return probePod;
    }

    /** Where each role ran, from its pod: the image, the digest the node ran, the node (for the result's manifest). */
    public Map<String, RunCollector.Placed> placed() {
        Map<String, RunCollector.Placed> placed = new LinkedHashMap<>();
        pod(PodFactory.serverPodName(run)).ifPresent(p -> {
            RunCollector.Placed server = placed(p);
            placed.put(AgentContract.ROLE_SERVER, server.withImageBytes(imageBytes(server)));
        });
        if (plan.server().measure().probeBeside()) {
            probePod().ifPresent(p -> placed.put(AgentContract.ROLE_PROBE, placed(p)));
        }
        plan.clients().forEach(c -> pod(PodFactory.clientPodName(run, c)).ifPresent(p -> placed.put(c.name(), placed(p))));
        return placed;
    }

    /**
     * The size of the server's image in its node's image list (matched by the digest the node ran, else by name);
     * {@code null} when the node does not list it or the operator may not read nodes ({@code rbac.readNodes}).
     */
    private Long imageBytes(RunCollector.Placed server) {
        if (server.node() == null) {
            return null;
        }
        try {
            Node node = client.nodes().withName(server.node()).get();
            if (node == null || node.getStatus() == null || node.getStatus().getImages() == null) {
                return null;
            }
            String digest = server.imageId() == null ? null : server.imageId().substring(server.imageId().indexOf("://") + 1).replaceFirst("^/+", "");
            return node.getStatus().getImages().stream()
                    .filter(image -> image.getNames() != null && image.getNames().stream().anyMatch(name -> name.equals(server.imageId())
                            || name.equals(digest) || name.equals(server.image()) || name.endsWith("/" + server.image())))
                    .map(ContainerImage::getSizeBytes).filter(Objects::nonNull).findFirst().orElse(null);
        } catch (KubernetesClientException e) {
            return null;   // not allowed to read nodes: the footprint goes without the image size
        }
    }

    private static RunCollector.Placed placed(Pod pod) {
        String image = pod.getSpec() == null || pod.getSpec().getContainers().isEmpty() ? null : pod.getSpec().getContainers().getFirst().getImage();
        String imageId = pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null || pod.getStatus().getContainerStatuses().isEmpty()
                ? null : pod.getStatus().getContainerStatuses().getFirst().getImageID();
        return new RunCollector.Placed(image, imageId, pod.getSpec() == null ? null : pod.getSpec().getNodeName());
    }

    private RoleObservation observe(String podName, boolean pinned, long cpuMillis) {
        Optional<Pod> found = pod(podName);
        return found.isEmpty() ? RoleObservation.absent(podName) : observe(found.get(), pinned, cpuMillis);
    }

    private RoleObservation observe(Pod pod, boolean pinned, long cpuMillis) {
        String podName = pod.getMetadata().getName();
        Long exclusive = pinned ? cpuMillis / 1000 : null;
        String requested = pinned ? Long.toString(cpuMillis / 1000) : cpuMillis + "m";
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        Optional<PodProblem> problem = PodProblem.of(pod);
        if (problem.isPresent() && problem.get().fatal()) {
            return new RoleObservation(RoleObservation.Presence.FAILED, podName, node, null, null, exclusive, requested,
                    problem.get().reason(), problem.get().message());
        }
        if (PodProblem.isReady(pod)) {
            return new RoleObservation(RoleObservation.Presence.READY, podName, node, AgentAccess.hostOf(pod), null, exclusive, requested, null, null);
        }
        // a pod's node is read only once the pod is not ready: the node controller marks the pods of a node it finds
        // Unknown not ready, so a healthy run reads no node
        Optional<String> lost = node == null ? Optional.empty() : nodeLost.computeIfAbsent(node, this::nodeLost);
        if (lost.isPresent()) {
            return new RoleObservation(RoleObservation.Presence.FAILED, podName, node, null, null, exclusive, requested, "NodeLost",
                    lost.get());
        }
        return new RoleObservation(RoleObservation.Presence.STARTING, podName, node, null, null, exclusive, requested,
                problem.map(PodProblem::reason).orElse(null), problem.map(PodProblem::message).orElse(null));
    }

    /**
     * The cluster's nodes, for placing the run before any pod is created; empty when the operator may not list them
     * ({@code rbac.readNodes: false}). Their kubelets' CPU manager policy is not read here: a pinned pod without
     * exclusive CPUs fails the run as NotPinned once it runs.
     */
    @Override
    public Optional<List<Preflight.NodeFacts>> nodes() {
        try {
            return Optional.of(client.nodes().list().getItems().stream()
                    .map(n -> Preflight.NodeFacts.of(n, null, "not read by the operator")).toList());
        } catch (KubernetesClientException e) {
            return Optional.empty();   // the scheduler's answer decides, within RunProtocol.READY_LIMIT
        }
    }

    /**
     * Why a node the run's pods are on is lost, naming it and every pod of the run there: its Ready condition has been
     * Unknown (its kubelet stopped reporting: the node controller's grace period passed) or False for
     * {@link RunProtocol#NODE_LOST_AFTER}. Empty when Ready, not Ready for less, or when nodes may not be read.
     */
    private Optional<String> nodeLost(String nodeName) {
        Node node;
        try {
            node = client.nodes().withName(nodeName).get();
        } catch (KubernetesClientException e) {
            return Optional.empty();
        }
        String onIt = String.join(", ", cached.values().stream().filter(p -> p.getSpec() != null && nodeName.equals(p.getSpec().getNodeName()))
                .map(p -> p.getMetadata().getName()).sorted().toList());
        if (node == null) {
            return Optional.of("node " + nodeName + " was removed from the cluster during the run; the run's pods there: " + onIt);
        }
        var ready = node.getStatus() == null || node.getStatus().getConditions() == null ? null : node.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
        if (ready == null || "True".equals(ready.getStatus())) {
            return Optional.empty();
        }
        Duration notReady = ready.getLastTransitionTime() == null ? Duration.ZERO
                : Duration.between(Instant.parse(ready.getLastTransitionTime()), Instant.now());
        if (notReady.compareTo(RunProtocol.NODE_LOST_AFTER) < 0) {
            return Optional.empty();   // perhaps an API server outage the kubelet is about to report past
        }
        return Optional.of("node " + nodeName + " is lost: Ready " + ready.getStatus() + " since " + ready.getLastTransitionTime()
                + " (" + notReady.toSeconds() + " s; " + ready.getReason() + ": " + ready.getMessage() + "); the run's pods there: " + onIt);
    }

    private Optional<Pod> pod(String name) {
        Pod pod = cached.get(name);
        if (pod != null) {
            return Optional.of(pod);
        }
        return read.computeIfAbsent(name, n -> Optional.ofNullable(client.pods().inNamespace(run.getMetadata().getNamespace()).withName(n).get()));
    }
}
