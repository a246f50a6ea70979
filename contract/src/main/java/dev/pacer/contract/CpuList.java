package dev.pacer.contract;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A Linux CPU list such as {@code 0-3,8,10-11} ({@code Cpus_allowed_list} of {@code /proc/PID/status}, taskset's
 * {@code -c}, the kubelet's cpusets): the one parser of the project.
 */
public final class CpuList {
    private CpuList() {
    }

    /** The CPUs of a list; throws {@link IllegalArgumentException} naming the bad part, or for an empty list. */
    public static BitSet parse(String list) {
        if (list == null) {
            throw new IllegalArgumentException("empty CPU list");
        }
        BitSet cpus = new BitSet();
        for (String part : list.strip().split(",")) {
            if (part.isBlank()) {
                continue;
            }
            String[] range = part.strip().split("-");
            try {
                int from = Integer.parseInt(range[0].strip());
                int to = range.length == 2 ? Integer.parseInt(range[1].strip()) : from;
                if (range.length > 2 || from < 0 || to < from) {
                    throw new IllegalArgumentException("bad CPU range '" + part.strip() + "' in '" + list.strip() + "'");
                }
                cpus.set(from, to + 1);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad CPU range '" + part.strip() + "' in '" + list.strip() + "'", e);
            }
        }
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException("empty CPU list");
        }
        return cpus;
    }

    /** The CPUs of a list, ascending. */
    public static List<Integer> cpus(String list) {
        return parse(list).stream().boxed().toList();
    }

    /** How many CPUs a list holds. */
    public static int count(String list) {
        return parse(list).cardinality();
    }

    /** The list of some CPUs in taskset's form, e.g. {@code 1,2,5}. */
    public static String format(List<Integer> cpus) {
        List<String> parts = new ArrayList<>();
        cpus.forEach(c -> parts.add(Integer.toString(c)));
        return String.join(",", parts);
    }
}
