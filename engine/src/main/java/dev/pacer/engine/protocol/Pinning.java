package dev.pacer.engine.protocol;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Measure;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.CpuList;

/**
 * Whether the kubelet pinned a pod: its process may run on exactly the requested number of CPUs, and on none that
 * another pinned pod of the run holds. A cpuset larger than asked means the pod got the shared pool — the static CPU
 * manager is off, or the pod was not Guaranteed — and the numbers of that run cannot be compared with pinned ones.
 */
public final class Pinning {
    private Pinning() {
    }

    /** One pod asked to be pinned: its name, the whole CPUs it asked for, and its effective cpuset (e.g. {@code 2-3,6}). */
    public record Asked(String pod, long cpus, String cpuset) {
    }

    /** Sentences, one per pod not pinned as asked; empty when every pod is. */
    public static List<String> problems(List<Asked> pods) {
        List<String> problems = new ArrayList<>();
        BitSet taken = new BitSet();
        for (Asked pod : pods) {
            if (pod.cpuset() == null || pod.cpuset().isBlank()) {
                problems.add("pod " + pod.pod() + " did not report its cpuset, so its pinning cannot be checked");
                continue;
            }
            BitSet cpus;
            try {
                cpus = CpuList.parse(pod.cpuset());
            } catch (IllegalArgumentException e) {
                problems.add("pod " + pod.pod() + " reported an unreadable cpuset '" + pod.cpuset() + "'");
                continue;
            }
            if (cpus.cardinality() != pod.cpus()) {
                problems.add("pod " + pod.pod() + " asked for " + pod.cpus() + " exclusive CPU" + (pod.cpus() == 1 ? "" : "s")
                        + " but runs on CPUs " + pod.cpuset() + " (" + cpus.cardinality()
                        + "): is the kubelet's cpuManagerPolicy static, and the pod Guaranteed?");
            } else if (cpus.intersects(taken)) {
                problems.add("pod " + pod.pod() + " runs on CPUs " + pod.cpuset() + ", shared with another pinned pod of the run");
            }
            taken.or(cpus);
        }
        return problems;
    }

    /** The pods of the status that asked for exclusive CPUs and did not get them, each said once. */
    static List<String> problems(List<BenchmarkRunStatus.PodStatus> pods, Measure measure) {
        List<Asked> asked = pods.stream().filter(p -> p.exclusiveCpus != null)
                .filter(p -> p.cpuset != null || !cpusetUnknowable(p, measure))
                .map(p -> new Asked(p.name, p.exclusiveCpus, p.cpuset)).toList();
        return problems(asked);
    }

    /**
     * A server without the agent may not be able to report its cpuset: nobody measures it, or the kernel probe
     * watches it from another pod. Its pinning is then the platform's word (taskset, the kubelet), said as a
     * warning of the result rather than made a reason to distrust it.
     */
    static boolean cpusetUnknowable(BenchmarkRunStatus.PodStatus pod, Measure measure) {
        return AgentContract.ROLE_SERVER.equals(pod.role) && !measure.agent();
    }

    /** The warnings for pinned pods whose cpuset could not be read. */
    static List<String> unverified(List<BenchmarkRunStatus.PodStatus> pods, Measure measure) {
        return pods.stream().filter(p -> p.exclusiveCpus != null && p.cpuset == null && cpusetUnknowable(p, measure))
                .map(p -> "pod " + p.name + " asked for " + p.exclusiveCpus + " exclusive CPU" + (p.exclusiveCpus == 1 ? "" : "s")
                        + "; measured without its agent (" + p.measuredBy + "), it could not report its cpuset, so its pinning was not verified")
                .toList();
    }
}
