package dev.pacer.operator.run;

import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.Phase;

/**
 * The operator's limit of runs at once ({@code PACER_MAX_ACTIVE_RUNS}), pure: runs on the same machines must not
 * overlap, so a run starts only while fewer than the limit are active (Starting to Collecting) or waiting before it.
 * Waiting runs go oldest first (creation time, then namespace and name), so a restart or two reconciles at once never
 * reorder them. The limit holds over every run the operator watches, whatever their namespace or nodes.
 */
public final class RunQueue {
    /** No limit. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    private RunQueue() {
    }

    /** Empty when the run may start; else the runs it waits for, named. */
    public static Optional<String> waitingFor(BenchmarkRun run, Collection<BenchmarkRun> all, int limit) {
        if (limit == UNLIMITED) {
            return Optional.empty();
        }
        List<BenchmarkRun> others = all.stream().filter(r -> !same(r, run)).toList();
        List<String> active = others.stream().filter(r -> phase(r).isActive()).map(RunQueue::name).toList();
        List<String> ahead = others.stream().filter(r -> waiting(r) && ORDER.compare(r, run) < 0).map(RunQueue::name).toList();
        if (active.size() + ahead.size() < limit) {
            return Optional.empty();
        }
        StringBuilder why = new StringBuilder();
        why.append(active.isEmpty() ? "" : "active runs " + active);
        if (!ahead.isEmpty()) {
            why.append(active.isEmpty() ? "" : " and ").append("runs queued before it ").append(ahead);
        }
        return Optional.of(why + " (at most " + limit + " at once: PACER_MAX_ACTIVE_RUNS)");
    }

    static final Comparator<BenchmarkRun> ORDER = Comparator
            .comparing((BenchmarkRun r) -> created(r))
            .thenComparing(r -> r.getMetadata().getNamespace() == null ? "" : r.getMetadata().getNamespace())
            .thenComparing(r -> r.getMetadata().getName());

    private static boolean waiting(BenchmarkRun run) {
        Phase phase = phase(run);
        return phase == Phase.Pending || phase == Phase.Queued;
    }

    private static Phase phase(BenchmarkRun run) {
        return run.getStatus() == null || run.getStatus().phase == null ? Phase.Pending : run.getStatus().phase;
    }

    private static Instant created(BenchmarkRun run) {
        String at = run.getMetadata().getCreationTimestamp();
        return at == null ? Instant.MAX : Instant.parse(at);
    }

    private static boolean same(BenchmarkRun a, BenchmarkRun b) {
        return Objects.equals(a.getMetadata().getNamespace(), b.getMetadata().getNamespace())
                && a.getMetadata().getName().equals(b.getMetadata().getName());
    }

    private static String name(BenchmarkRun run) {
        return run.getMetadata().getNamespace() + "/" + run.getMetadata().getName();
    }
}
