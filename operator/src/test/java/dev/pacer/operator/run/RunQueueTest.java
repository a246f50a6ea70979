package dev.pacer.operator.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class RunQueueTest {
    static BenchmarkRun run(String namespace, String name, String created, Phase phase) {
        BenchmarkRun run = new BenchmarkRun();
        run.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).withCreationTimestamp(created).build());
        if (phase != null) {
            run.setStatus(new BenchmarkRunStatus());
            run.getStatus().phase = phase;
        }
        return run;
    }

    @Test
    void theOldestWaitingRunStartsFirstAndTheOthersWaitNamingWhy() {
        BenchmarkRun a = run("bench", "a", "2026-11-23T10:00:00Z", null);
        BenchmarkRun b = run("perf", "b", "2026-11-23T10:00:01Z", Phase.Pending);
        List<BenchmarkRun> all = List.of(b, a);
        assertThat(RunQueue.waitingFor(a, all, 1)).isEmpty();
        assertThat(RunQueue.waitingFor(b, all, 1)).hasValueSatisfying(why -> assertThat(why)
                .contains("runs queued before it [bench/a]").contains("at most 1 at once"));
        assertThat(RunQueue.waitingFor(b, all, 2)).isEmpty();
    }

    @Test
    void activeRunsHoldTheLimitAndFinishedOnesDoNot() {
        BenchmarkRun measuring = run("bench", "m", "2026-11-23T09:00:00Z", Phase.Measuring);
        BenchmarkRun done = run("bench", "d", "2026-11-23T08:00:00Z", Phase.Succeeded);
        BenchmarkRun failed = run("bench", "f", "2026-11-23T08:00:00Z", Phase.Failed);
        BenchmarkRun next = run("bench", "n", "2026-11-23T10:00:00Z", Phase.Queued);
        assertThat(RunQueue.waitingFor(next, List.of(measuring, done, failed, next), 1)).hasValueSatisfying(why ->
                assertThat(why).startsWith("active runs [bench/m]").doesNotContain("bench/d", "bench/f"));
        assertThat(RunQueue.waitingFor(next, List.of(done, failed, next), 1)).isEmpty();
        assertThat(RunQueue.waitingFor(next, List.of(measuring, next), RunQueue.UNLIMITED)).isEmpty();
    }

    @Test
    void sameTimeIsOrderedByNamespaceThenName() {
        BenchmarkRun x = run("a", "z", "2026-11-23T10:00:00Z", null);
        BenchmarkRun y = run("b", "a", "2026-11-23T10:00:00Z", null);
        assertThat(RunQueue.waitingFor(x, List.of(x, y), 1)).isEmpty();
        assertThat(RunQueue.waitingFor(y, List.of(x, y), 1)).isPresent();
    }
}
