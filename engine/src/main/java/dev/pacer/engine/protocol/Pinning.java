package dev.pacer.engine.protocol;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

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
}
