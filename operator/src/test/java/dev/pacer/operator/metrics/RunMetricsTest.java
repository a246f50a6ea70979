package dev.pacer.operator.metrics;

import dev.pacer.contract.Golden;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

/**
 * The {@code pacer_run_*} exposition of docs/design.md ("Metrics") against a golden file (src/test/resources/golden/run-metrics.txt;
 * delete it to regenerate after an intended change).
 */
public class RunMetricsTest {

    public static BenchmarkRun run(String name, Phase phase) throws IOException {
        try (InputStream in = RunMetricsTest.class.getResourceAsStream("/golden/run.yaml")) {
            BenchmarkRun run = BenchmarkRunYaml.read(in, "golden/run.yaml");
            run.getMetadata().setName(name);
            run.getMetadata().setNamespace("bench");
            run.setStatus(new BenchmarkRunStatus());
            run.getStatus().phase = phase;
            return run;
        }
    }

    public static RunResult result() {
        RunResult result = new RunResult();
        result.verdict = Verdict.Passed;
        result.server = new RunResult.ServerFigures();
        result.server.histogramsAvailable = true;
        result.server.samples = 180;
        result.server.p99IntegralMicros = 12_345L;
        result.server.maxIntegralMicros = 98_765L;
        result.server.p99IntegralCorrectedMicros = 12_000L;
        result.server.minMicros = 5L;
        result.server.p50Micros = 40L;
        result.server.p99Micros = 70L;
        result.server.p999Micros = 300L;
        result.server.maxMicros = 2_500L;
        result.clients = new RunResult.ClientFigures();
        result.clients.requests = 43_200_000L;
        result.clients.offeredRate = 240_000.0;
        result.clients.achievedRate = 239_990.5;
        result.clients.errors = 0L;
        result.clients.p50Micros = 120L;
        result.clients.p99Micros = 900L;
        result.clients.maxMicros = 15_000L;
        result.clients.sendLagP99Micros = 60L;
        result.clients.p99IntegralMicros = 162_000L;
        result.clients.p99UncorrectedIntegralMicros = 150_000L;
        result.window = new RunResult.Window(1_795_000_000_000L, 1_795_000_180_000L);
        result.server.measuredBy = "probe";
        result.server.series = "service";
        RunResult.SeriesFigures residence = new RunResult.SeriesFigures();   // the probe's other series, published beside
        residence.name = "residence";
        residence.p99IntegralMicros = 14_400L;
        residence.maxIntegralMicros = 90_000L;
        residence.p50Micros = 60L;
        residence.p99Micros = 95L;
        residence.maxMicros = 900L;
        result.server.otherSeries = List.of(residence);
        result.server.footprint = new RunResult.Footprint();
        result.server.footprint.idleRssBytes = 100L << 20;
        result.server.footprint.peakRssBytes = 180L << 20;
        result.server.footprint.cpuSeconds = 300.5;
        result.server.footprint.cpuMicrosPerRequest = 6.96;
        result.server.footprint.cpuUtilization = 0.21;
        result.server.footprint.saturatedPeriods = 0;
        result.server.footprint.gcPauseMillis = 120L;
        result.server.footprint.imageBytes = 94_371_840L;
        RunResult.ClientFigure client = new RunResult.ClientFigure();
        client.name = "client-0";
        client.footprint = new RunResult.Footprint();
        client.footprint.cpuUtilization = 0.97;
        client.footprint.saturatedPeriods = 3;
        client.footprint.maxWaitPerSliceMicros = 1_250.0;
        client.footprint.maxHiccupMillis = 41.5;
        client.footprint.cpuMicrosPerRequest = 18.7;
        result.clients.perClient.add(client);
        return result;
    }

    static String exposition(MetricSnapshots snapshots) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, snapshots, EscapingScheme.ALLOW_UTF8);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void finishedRunsBecomeTheSeriesOfTheDesignAndRunningOnesAreLeftOut() throws IOException {
        BenchmarkRun succeeded = run("jetty12-core", Phase.Succeeded);
        succeeded.getStatus().result = result();
        succeeded.getStatus().startAtEpochMs = 1_794_999_970_000L;   // a 30 s warm-up before the window
        BenchmarkRun failed = run("broken", Phase.Failed);
        failed.getSpec().server.labels.clear();
        BenchmarkRun running = run("still-running", Phase.Measuring);
        String actual = exposition(RunMetrics.snapshots(List.of(succeeded, failed, running)));

        assertThat(actual).doesNotContain("still-running");
        assertThat(actual).contains("pacer_run_p99_integral_seconds{namespace=\"bench\",run=\"jetty12-core\",server=\"jetty12\",variant=\"core\"} 0.012345");
        assertThat(actual).contains("pacer_run_info{image=\"pacer/server-jetty12:0.1.0\",measured_by=\"\",namespace=\"bench\",phase=\"Failed\",run=\"broken\",series=\"\",server=\"\",variant=\"\",verdict=\"\"} 1");
        assertThat(actual).contains("measured_by=\"probe\",namespace=\"bench\",phase=\"Succeeded\",run=\"jetty12-core\",series=\"service\"");
        assertThat(actual).contains("pacer_run_server_cpu_per_request_seconds{namespace=\"bench\",run=\"jetty12-core\",server=\"jetty12\",variant=\"core\"} 6.96E-6");
        // a saturated client, by name: what made the run Invalid is on the dashboard too
        assertThat(actual).contains("pacer_run_client_saturated_periods{client=\"client-0\",namespace=\"bench\",run=\"jetty12-core\",server=\"jetty12\",variant=\"core\"} 3");
        assertThat(actual).contains("pacer_run_load_start_timestamp_seconds{namespace=\"bench\",run=\"jetty12-core\",server=\"jetty12\",variant=\"core\"} 1.79499997E9");
        Golden.assertMatches(actual, "run-metrics.txt");
    }

    @Test
    void noFinishedRunNoSeries() throws IOException {
        assertThat(exposition(RunMetrics.snapshots(List.of(run("r", Phase.Starting))))).isEmpty();
    }
}
