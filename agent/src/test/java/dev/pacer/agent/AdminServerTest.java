package dev.pacer.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class AdminServerTest {
    final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The buckets of the server's latency histogram (the run dashboard's heatmap) are the contract's, which the kernel
     * probe's service histogram shares, so that one heatmap shows either.
     */
    @Test
    void theProcessingBucketsAreTheContractsOwn() throws Exception {
        double[] contract = new com.fasterxml.jackson.databind.ObjectMapper().readValue(
                Path.of("../contract/src/test/resources/golden/latency-buckets-seconds.json").toFile(), double[].class);
        double[] finite = java.util.Arrays.copyOf(AgentMetrics.PROCESSING_BUCKETS_SECONDS, AgentMetrics.PROCESSING_BUCKETS_SECONDS.length - 1);
        assertThat(finite).containsExactly(contract);
        assertThat(AgentMetrics.PROCESSING_BUCKETS_SECONDS[contract.length]).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void speaksTheContract() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        try (PeriodSampler sampler = PeriodSampler.builder("processing").period(Duration.ofMillis(100)).start();
             AdminServer admin = AdminServer.builder().port(0).bindAddress("127.0.0.1").registry(registry).sampler(sampler)
                     .info(() -> ProcessInfo.describe("server", 1000, List.of("processing"), Map.of())).start()) {
            AgentMetrics.register(registry, "server", sampler, true);
            int port = admin.getPort();
            assertThat(get(port, "/healthz").statusCode()).isEqualTo(503);
            admin.markReady();
            assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
            sampler.recordNanos(1_500_000);
            // the period's figures show once the 100 ms period holding the value has closed
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> get(port, "/metrics").body().contains("pacer_requests_total{role=\"server\"} 1.0"));
            String metrics = get(port, "/metrics").body();
            assertThat(metrics).contains("pacer_requests_total{role=\"server\"} 1.0")
                    .contains("pacer_processing_seconds_bucket{le=\"0.0025\"} 1")
                    .contains("pacer_processing_seconds_bucket{le=\"0.001\"} 0")
                    .contains("pacer_period_latency_seconds{role=\"server\",stat=\"max\"}");
            String info = get(port, "/pacer/v1/info").body();
            String ownCpus = Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow().split(":")[1].trim();
            assertThat(info).contains("\"role\" : \"server\"").contains("\"cpuset\" : \"" + ownCpus + "\"");
            assertThat(get(port, "/pacer/v1/histograms").body()).contains("#[Histogram log format version 1.3]");
            assertThat(get(port, "/pacer/v1/histograms?series=nope").statusCode()).isEqualTo(404);
        }
    }
}
