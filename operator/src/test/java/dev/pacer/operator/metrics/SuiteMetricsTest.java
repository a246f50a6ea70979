package dev.pacer.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.contract.Golden;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

/** The {@code pacer_suite_*} exposition against a golden file (src/test/resources/golden/suite-metrics.txt). */
class SuiteMetricsTest {

    static BenchmarkSuiteStatus.SuiteRun run(String server, long rate, int repetition, Long clientP99, Long p99Integral) {
        BenchmarkSuiteStatus.SuiteRun run = new BenchmarkSuiteStatus.SuiteRun();
        run.name = "s-" + server + "-" + rate + "-" + repetition;
        run.server = server;
        run.ratePerClient = rate;
        run.repetition = repetition;
        run.phase = clientP99 == null ? "Failed" : "Succeeded";
        run.clientP99Micros = clientP99;
        run.p99IntegralMicros = p99Integral;
        run.achievedRate = clientP99 == null ? null : rate * 2.0;
        return run;
    }

    static BenchmarkSuite suite(String name, String phase) {
        BenchmarkSuite suite = new BenchmarkSuite();
        suite.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("bench").build());
        suite.setStatus(new BenchmarkSuiteStatus());
        suite.getStatus().phase = phase;
        return suite;
    }

    @Test
    void aSweepGivesItsCurveAndSustainedRateAndFixedRatesTheirIntervals() throws IOException {
        BenchmarkSuite sweep = suite("shootout", "Succeeded");
        sweep.getStatus().runsDone = 3;
        sweep.getStatus().runs = new ArrayList<>(List.of(run("jetty12", 1_000, 1, 900L, 20_000L), run("jetty12", 2_000, 1, 1_500L, 40_000L),
                run("jetty12", 4_000, 1, null, null)));
        BenchmarkSuiteStatus.ServerSummary sustained = new BenchmarkSuiteStatus.ServerSummary();
        sustained.name = "jetty12";
        sustained.sustainedRatePerClient = 2_000L;
        sweep.getStatus().servers = List.of(sustained);

        BenchmarkSuite fixed = suite("jetty-comparison", "Running");
        fixed.getStatus().runsDone = 2;
        fixed.getStatus().runs = new ArrayList<>(List.of(run("jetty11", 500, 1, 800L, 10_000L), run("jetty11", 500, 2, 850L, 11_000L)));
        BenchmarkSuiteStatus.ServerSummary median = new BenchmarkSuiteStatus.ServerSummary();
        median.name = "jetty11";
        median.ratePerClient = 500L;
        median.p99IntegralMedianMicros = 10_500L;
        median.p99IntegralLowMicros = 10_000L;
        median.p99IntegralHighMicros = 11_000L;
        fixed.getStatus().servers = List.of(median);

        BenchmarkSuite fresh = suite("not-yet", null);
        String actual = RunMetricsTest.exposition(SuiteMetrics.snapshots(List.of(sweep, fixed, fresh)));
        assertThat(actual).doesNotContain("not-yet");
        assertThat(actual).contains("pacer_suite_sustained_rate_per_client{namespace=\"bench\",server=\"jetty12\",suite=\"shootout\"} 2000.0");
        assertThat(actual).contains("pacer_suite_sustained_client_bound{namespace=\"bench\",server=\"jetty12\",suite=\"shootout\"} 0.0");
        assertThat(actual).doesNotContain("pacer_suite_sustained_client_bound{namespace=\"bench\",server=\"jetty11\"");   // fixed rates
        assertThat(actual).contains("pacer_suite_run_client_p99_seconds{namespace=\"bench\",rate_per_client=\"2000\",repetition=\"1\",server=\"jetty12\",suite=\"shootout\"} 0.0015");
        assertThat(actual).doesNotContain("rate_per_client=\"4000\"");   // a failed run has no figures
        assertThat(actual).contains("pacer_suite_p99_integral_seconds{namespace=\"bench\",rate_per_client=\"500\",server=\"jetty11\",stat=\"high\",suite=\"jetty-comparison\"} 0.011");
        Golden.assertMatches(actual, "suite-metrics.txt");
    }
}
