package dev.pacer.engine.preflight;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.pacer.api.Quantities;
import dev.pacer.engine.plan.RunPlan;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * What a cluster must offer before a run starts, judged from facts read through the API (no I/O here): each node's
 * CPU manager policy (its kubelet's configuration), the CPUs it can give, its kernel; and whether the Prometheus
 * Operator's CRDs exist. {@code pacer check} prints these findings; a problem names what is wrong and the fix.
 */
public final class Preflight {
    /** The kernel the probe needs at least (its socket tracepoints and BPF features). */
    public static final int[] PROBE_MIN_KERNEL = {6, 3};
    public static final String STATIC_POLICY = "static";

    private Preflight() {
    }

    /**
     * One node as the API shows it.
     *
     * @param cpuManagerPolicy     its kubelet's {@code cpuManagerPolicy}, {@code null} when it could not be read
     * @param policyUnreadable     why the policy could not be read (e.g. {@code nodes/proxy} forbidden), else {@code null}
     * @param allocatableCpuMillis {@code status.allocatable.cpu}
     * @param kernelVersion        {@code status.nodeInfo.kernelVersion}
     * @param fullPhysicalCpusOnly its kubelet's {@code cpuManagerPolicyOptions} hold {@code full-pcpus-only: "true"}: on a
     *                             node with two threads per core, an odd number of exclusive CPUs is refused
     */
    public record NodeFacts(String name, String cpuManagerPolicy, String policyUnreadable, long allocatableCpuMillis,
                            String kernelVersion, String architecture, Map<String, String> labels, boolean schedulable,
                            boolean fullPhysicalCpusOnly) {
        public NodeFacts(String name, String cpuManagerPolicy, String policyUnreadable, long allocatableCpuMillis,
                         String kernelVersion, String architecture, Map<String, String> labels, boolean schedulable) {
            this(name, cpuManagerPolicy, policyUnreadable, allocatableCpuMillis, kernelVersion, architecture, labels, schedulable, false);
        }

        boolean pins() {
            return STATIC_POLICY.equals(cpuManagerPolicy);
        }

        /** Exclusive CPUs a pinned pod can get here: whole allocatable CPUs, the static policy's pool. */
        long wholeCpus() {
            return allocatableCpuMillis / 1000;
        }

        boolean matches(Map<String, String> selector) {
            return selector == null || selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
        }

        /**
         * A node as the API object shows it; its kubelet's policy read elsewhere ({@code /configz}), or {@code null}
         * with why not.
         */
        public static NodeFacts of(Node node, String cpuManagerPolicy, String policyUnreadable) {
            return of(node, cpuManagerPolicy, policyUnreadable, false);
        }

        /** The same, with whether its kubelet gives whole physical cores only ({@code full-pcpus-only}). */
        public static NodeFacts of(Node node, String cpuManagerPolicy, String policyUnreadable, boolean fullPhysicalCpusOnly) {
            Map<String, Quantity> allocatable = node.getStatus() == null || node.getStatus().getAllocatable() == null
                    ? Map.of() : node.getStatus().getAllocatable();
            long cpuMillis = allocatable.get("cpu") == null ? 0 : Quantities.parseCpuMillis(allocatable.get("cpu").toString());
            var info = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
            boolean schedulable = node.getSpec() == null || !Boolean.TRUE.equals(node.getSpec().getUnschedulable());
            return new NodeFacts(node.getMetadata().getName(), cpuManagerPolicy, policyUnreadable, cpuMillis,
                    info == null ? null : info.getKernelVersion(), info == null ? null : info.getArchitecture(),
                    node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels(), schedulable, fullPhysicalCpusOnly);
        }
    }

    public enum Level { OK, WARNING, PROBLEM }

    /** One finding: about what ({@code node/NAME}, {@code spec.server.cpus}, …), and what was found. */
    public record Finding(Level level, String subject, String message) {
        @Override
        public String toString() {
            return level.name().toLowerCase(Locale.ROOT) + "  " + subject + ": " + message;
        }
    }

    /** The cluster alone: each node, and the monitors' CRDs when they are wanted. */
    public static List<Finding> cluster(List<NodeFacts> nodes, boolean monitorsWanted, boolean monitorCrdsPresent) {
        List<Finding> findings = new ArrayList<>();
        if (nodes.isEmpty()) {
            findings.add(new Finding(Level.PROBLEM, "nodes", "no node is listed (does the kubeconfig reach the cluster?)"));
        }
        for (NodeFacts node : nodes) {
            String subject = "node/" + node.name();
            String facts = String.format(Locale.ROOT, "%d allocatable CPUs (%d m), kernel %s, %s", node.wholeCpus(),
                    node.allocatableCpuMillis(), node.kernelVersion(), node.architecture());
            if (node.cpuManagerPolicy() == null) {
                findings.add(new Finding(Level.WARNING, subject, facts + "; CPU manager policy unknown (" + node.policyUnreadable()
                        + "): a pinned run there fails at once if its pods get no exclusive CPUs"));
            } else if (!node.pins()) {
                findings.add(new Finding(Level.WARNING, subject, facts + "; cpuManagerPolicy " + node.cpuManagerPolicy()
                        + ": pods get no exclusive CPUs here; set the kubelet's cpuManagerPolicy: static (docs/installing.md, \"Nodes\") "
                        + "for pinned runs"));
            } else {
                findings.add(new Finding(Level.OK, subject, facts + "; cpuManagerPolicy static" + (node.fullPhysicalCpusOnly()
                        ? ", full-pcpus-only (pinned pods ask for an even number of CPUs on hyper-threaded nodes)" : "")));
            }
            if (!node.schedulable()) {
                findings.add(new Finding(Level.WARNING, subject, "unschedulable (cordoned): no run's pod lands there"));
            }
        }
        if (monitorsWanted && !monitorCrdsPresent) {
            findings.add(new Finding(Level.WARNING, "monitors", "the Prometheus Operator's CRDs (servicemonitors.monitoring.coreos.com, "
                    + "podmonitors.monitoring.coreos.com) are missing: the chart then renders no ServiceMonitor or PodMonitor, and nothing "
                    + "scrapes pacer; install the Prometheus Operator before pacer, or give a plain Prometheus the scrape "
                    + "configuration of docs/installing.md"));
        } else if (monitorsWanted) {
            findings.add(new Finding(Level.OK, "monitors", "the Prometheus Operator's ServiceMonitor and PodMonitor CRDs exist"));
        }
        return findings;
    }

    /**
     * Where a run's pods can go, from the nodes' labels and whether they are schedulable alone: problems only, each
     * naming the field and the fix. The operator refuses a run with any before it creates a pod (the scheduler would
     * leave it Pending); {@code pacer check} prints them. Whether the nodes pin is judged by {@link #run} (it needs
     * each kubelet's configuration, which the operator does not read: a pinned pod without exclusive CPUs fails the
     * run at once as NotPinned).
     */
    public static List<Finding> placement(RunPlan plan, List<NodeFacts> nodes) {
        List<Finding> problems = new ArrayList<>();
        RunPlan.Placement placement = plan.placement();
        Map<String, String> serverSelector = placement.server().nodeSelector();
        Map<String, String> clientSelector = placement.clients().nodeSelector();
        List<NodeFacts> schedulable = nodes.stream().filter(NodeFacts::schedulable).toList();
        List<NodeFacts> serverNodes = schedulable.stream().filter(n -> n.matches(serverSelector)).toList();
        List<NodeFacts> clientNodes = schedulable.stream().filter(n -> n.matches(clientSelector)).toList();
        if (serverNodes.isEmpty()) {
            problems.add(noNode("spec.placement.server.nodeSelector", serverSelector, nodes));
        }
        if (clientNodes.isEmpty() && !plan.clients().isEmpty()) {
            problems.add(noNode("spec.placement.clients.nodeSelector", clientSelector, nodes));
        }
        if (placement.separateNodes() && !serverNodes.isEmpty() && !clientNodes.isEmpty() && !plan.clients().isEmpty()
                && serverNodes.stream().noneMatch(s -> clientNodes.stream().anyMatch(c -> !c.name().equals(s.name())))) {
            problems.add(new Finding(Level.PROBLEM, "spec.placement.separateNodes", "the clients must run on another node than the "
                    + "server's, but the only schedulable node " + eligible(serverSelector) + "for either is " + names(serverNodes)
                    + ": add a node (with the clients' labels " + (clientSelector == null ? "{}" : clientSelector) + "), or set "
                    + "spec.placement.separateNodes: false to share it"));
        }
        return problems;
    }

    /** A run against the cluster: where its pods can go, can its pinned roles get their exclusive CPUs, can the probe load on the server's node. */
    public static List<Finding> run(RunPlan plan, List<NodeFacts> nodes) {
        List<Finding> findings = new ArrayList<>(placement(plan, nodes));
        RunPlan.Placement placement = plan.placement();
        Map<String, String> serverSelector = placement.server().nodeSelector();
        Map<String, String> clientSelector = placement.clients().nodeSelector();
        List<NodeFacts> serverNodes = nodes.stream().filter(NodeFacts::schedulable).filter(n -> n.matches(serverSelector)).toList();
        List<NodeFacts> clientNodes = nodes.stream().filter(NodeFacts::schedulable).filter(n -> n.matches(clientSelector)).toList();
        String run = plan.runName();
        long serverCpus = plan.server().cpuMillis() / 1000;
        List<NodeFacts> serverCandidates = serverNodes;
        if (placement.server().pinCpus()) {
            serverCandidates = serverNodes.stream().filter(NodeFacts::pins).filter(n -> n.wholeCpus() >= serverCpus).toList();
            if (serverCandidates.isEmpty() && !serverNodes.isEmpty()) {
                findings.add(new Finding(Level.PROBLEM, "spec.server.cpus", run + " pins its server on " + serverCpus + " exclusive CPU"
                        + (serverCpus == 1 ? "" : "s") + ", but no node " + eligible(serverSelector) + "runs the static CPU manager with that many "
                        + "allocatable CPUs (" + describe(serverNodes) + "): configure a node so (docs/installing.md), lower spec.server.cpus, "
                        + "or set spec.placement.server.pinCpus: false"));
            } else if (!serverCandidates.isEmpty()) {
                findings.add(new Finding(Level.OK, "spec.server.cpus", serverCpus + " exclusive CPUs on " + names(serverCandidates)));
            }
            smtAlignment(findings, "spec.server.cpus", run + "'s server", serverCpus, serverCandidates);
        }
        // the clients' room depends on where the server goes: judged once the server has a node to go to
        if (placement.clients().pinCpus() && !plan.clients().isEmpty() && !serverCandidates.isEmpty() && !clientNodes.isEmpty()) {
            long clientCpus = Math.max(1, plan.clients().getFirst().cpuMillis() / 1000);
            boolean separate = placement.separateNodes();
            // the best placement of the server among its candidates: the clients get what the others hold, and what
            // the server's own node has left when they may share it
            long serverExclusive = placement.server().pinCpus() ? serverCpus : 0;
            long clientSlots = 0;
            for (NodeFacts serverNode : serverCandidates.isEmpty() ? List.<NodeFacts>of() : serverCandidates) {
                long slots = 0;
                for (NodeFacts node : clientNodes) {
                    if (!node.pins()) {
                        continue;
                    }
                    long cpus = node.wholeCpus();
                    if (node.name().equals(serverNode.name())) {
                        cpus = separate ? 0 : cpus - serverExclusive;
                    }
                    slots += Math.max(0, cpus / clientCpus);
                }
                clientSlots = Math.max(clientSlots, slots);
            }
            smtAlignment(findings, "spec.clients.cpus", run + "'s clients", clientCpus, clientNodes.stream().filter(NodeFacts::pins).toList());
            if (clientSlots < plan.clients().size()) {
                findings.add(new Finding(Level.PROBLEM, "spec.clients.cpus", run + " pins " + plan.clients().size() + " client"
                        + (plan.clients().size() == 1 ? "" : "s") + " on "
                        + clientCpus + " exclusive CPU" + (clientCpus == 1 ? "" : "s") + " each, but the static-policy nodes "
                        + eligible(clientSelector) + (separate ? "apart from the server's " : "") + "hold room for " + clientSlots
                        + " (" + describe(clientNodes) + "): add nodes, lower spec.clients.count or .cpus, or set spec.placement.clients.pinCpus: false"));
            } else {
                findings.add(new Finding(Level.OK, "spec.clients.cpus", plan.clients().size() + " clients × " + clientCpus + " exclusive CPUs fit"));
            }
        }
        if (!placement.clients().pinCpus() && !plan.clients().isEmpty() && plan.clients().getFirst().cpuMillis() == 0) {
            findings.add(new Finding(Level.WARNING, "spec.clients.cpus", run + "'s unpinned clients ask for no CPU, so their pods get the "
                    + "least weight the kernel has (cpu.shares 2): any busy process of their node takes the CPU first, and the run ends "
                    + "Invalid, client-bound; ask for some (e.g. cpus: 200m)"));
        }
        if (plan.server().measure().probe()) {
            List<NodeFacts> oldKernels = serverCandidates.stream().filter(n -> !kernelAtLeast(n.kernelVersion(), PROBE_MIN_KERNEL)).toList();
            if (!serverCandidates.isEmpty() && oldKernels.size() == serverCandidates.size()) {
                findings.add(new Finding(Level.PROBLEM, "spec.server.measure", "the kernel probe needs Linux " + PROBE_MIN_KERNEL[0] + "."
                        + PROBE_MIN_KERNEL[1] + " or newer with BTF, but the server's nodes run " + oldKernels.stream()
                        .map(n -> n.name() + " " + n.kernelVersion()).toList() + ": choose newer nodes, or measure: agent/none"));
            } else if (!oldKernels.isEmpty()) {
                findings.add(new Finding(Level.WARNING, "spec.server.measure", "nodes " + names(oldKernels) + " run a kernel older than "
                        + PROBE_MIN_KERNEL[0] + "." + PROBE_MIN_KERNEL[1] + ": a server placed there cannot be probed"));
            } else if (!serverCandidates.isEmpty()) {
                findings.add(new Finding(Level.OK, "spec.server.measure", "kernels " + PROBE_MIN_KERNEL[0] + "." + PROBE_MIN_KERNEL[1]
                        + "+ on the server's nodes (BTF is checked when the probe starts)"));
            }
        }
        return findings;
    }

    /**
     * An odd number of exclusive CPUs where a kubelet gives whole physical cores only: on a node with two threads per
     * core the kubelet refuses the pod (SMTAlignmentError). The API does not say a node's threads per core, so this
     * warns rather than refuses.
     */
    private static void smtAlignment(List<Finding> findings, String field, String who, long cpus, List<NodeFacts> nodes) {
        List<NodeFacts> whole = nodes.stream().filter(NodeFacts::fullPhysicalCpusOnly).toList();
        if (cpus % 2 == 1 && !whole.isEmpty()) {
            findings.add(new Finding(Level.WARNING, field, who + " pins " + cpus + " CPU" + (cpus == 1 ? "" : "s") + ", an odd number, and "
                    + names(whole) + " run the static CPU manager with full-pcpus-only: on a node with two threads per core the kubelet "
                    + "refuses such a pod (SMTAlignmentError); ask for " + (cpus + 1) + " CPUs, or run it where full-pcpus-only is off "
                    + "(docs/installing.md, \"Exclusive CPUs\")"));
        }
    }

    private static final Pattern KERNEL = Pattern.compile("^(\\d+)\\.(\\d+)");

    /** Whether {@code 6.1.0-27-amd64} is at least {@code {6, 3}}; an unreadable version is not. */
    static boolean kernelAtLeast(String version, int[] least) {
        Matcher m = version == null ? null : KERNEL.matcher(version.strip());
        if (m == null || !m.find()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > least[0] || (major == least[0] && minor >= least[1]);
    }

    private static String eligible(Map<String, String> selector) {
        return selector == null || selector.isEmpty() ? "" : "with the labels " + selector + " ";
    }

    private static List<String> names(List<NodeFacts> nodes) {
        return nodes.stream().map(NodeFacts::name).toList();
    }

    private static Finding noNode(String field, Map<String, String> selector, List<NodeFacts> nodes) {
        return new Finding(Level.PROBLEM, field, "no schedulable node has the labels " + selector + " (" + describeLabels(nodes)
                + "): label a node so, or change the selector");
    }

    /** Each node with its own labels (those the API adds, {@code kubernetes.io/…}, left out). */
    private static String describeLabels(List<NodeFacts> nodes) {
        if (nodes.isEmpty()) {
            return "the cluster lists no node";
        }
        return String.join(", ", nodes.stream().map(n -> n.name() + (n.schedulable() ? " " : " (unschedulable) ") + new TreeMap<>(
                n.labels()).entrySet().stream().filter(e -> !e.getKey().contains("kubernetes.io/"))
                .map(e -> e.getKey() + "=" + e.getValue()).toList()).toList());
    }

    private static String describe(List<NodeFacts> nodes) {
        return String.join(", ", nodes.stream().map(n -> n.name() + ": " + (n.cpuManagerPolicy() == null ? "policy unknown" : n.cpuManagerPolicy())
                + ", " + n.wholeCpus() + " CPUs").toList());
    }
}
