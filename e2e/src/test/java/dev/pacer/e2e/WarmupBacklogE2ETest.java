package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.report.ResultDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog the client carries at the end of its warm-up never spills into the measured window. The server
 * ({@link GroundTruthServer}) holds its first request for a while; the client's one connection is behind it, so every
 * request of the warm-up waits in the client, late. The window starts once the client is on its schedule again, later
 * than planned, and says so; a backlog still growing past spec.warmup more reaches the window, and the run is Invalid.
 */
class WarmupBacklogE2ETest {
    @TempDir
    Path work;

    @Test
    void aWarmUpBacklogMovesTheWindowUntilTheClientIsOnItsScheduleAndNothingOfItIsMeasured() throws IOException {
        LocalRuns.Outcome outcome = LocalRuns.run(work, "backlog", spec("backlog", 5_000));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        ResultDocument document = outcome.document();
        RunResult result = document.result();
        assertThat(result.verdict).as("%s", result.reasons).isEqualTo(Verdict.Passed);
        LoadRunStatus client = document.clientRuns().get("client-0");
        assertThat(result.warmupExtendedSeconds).as("the warm-up grew, by whole periods, at most spec.warmup").isNotNull()
                .isPositive().isLessThanOrEqualTo(4.0);
        assertThat(client.windowMovedMs()).as("the client measured the moved window").isEqualTo(Math.round(result.warmupExtendedSeconds * 1000));
        assertThat(client.window().startEpochMs()).isEqualTo(client.startAtEpochMs() + 4_000 + client.windowMovedMs());
        assertThat(client.window().endEpochMs() - client.window().startEpochMs()).as("the whole duration measured").isEqualTo(4_000);
        assertThat(client.unsent()).as("the schedule ran on to the moved window's end, every request sent").isZero();
        assertThat(client.completedInWindow()).as("the window's requests, none of the backlog's")
                .isBetween(Math.round(4 * 100 * 0.97), Math.round(4 * 100 * 1.03));
        assertThat(outcome.out()).contains("WarmupExtended").contains("client-0");
    }

    @Test
    void aBacklogThatKeepsGrowingPastSpecWarmupMoreReachesTheWindowAndMakesTheRunInvalidSayingWhy() throws IOException {
        LocalRuns.Outcome outcome = LocalRuns.run(work, "too-long", spec("too-long", 12_000));
        RunResult result = outcome.document().result();
        assertThat(result.warmupExtendedSeconds).as("spec.warmup more, then the backlog still grew: no more").isEqualTo(4.0);
        assertThat(result.verdict).as("the backlog reached the window").isEqualTo(Verdict.Invalid);
        assertThat(result.reasons).anySatisfy(reason -> assertThat(reason)
                .contains("client-0", "behind schedule as the window started", "did not shrink", "the window measured the clients catching up"));
        assertThat(outcome.out()).contains("WarmupNotExtended");
    }

    /** 100 req/s over one connection, 4 s of warm-up and 4 s measured, the server's first request held this long. */
    private static String spec(String name, long stallFirstMillis) throws IOException {
        String command = GroundTruthServer.commandYaml("--stall-first-millis=" + stallFirstMillis);
        return """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: %s}
                spec:
                  server: {image: ground-truth, command: %s, port: %d, measure: none, cpus: "1"}
                  clients: {count: 1, rate: "100", connections: 1, cpus: "1"}
                  warmup: 4s
                  duration: 4s
                  timeout: 2m
                  criteria: {rateTolerance: 3%%, maxSendLagP99: 50ms}
                """.formatted(name, command, LocalRuns.freePort());
    }
}
