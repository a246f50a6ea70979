package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.pacer.contract.AgentInfo;
import dev.pacer.engine.agents.AgentClient;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;

/** A real server process speaks the agent contract: histograms count every request served, info shows the real cpuset. */
class AgentContractE2ETest {
    static final int REQUESTS = 500;

    @Test
    void histogramLogCountsEqualRequestsServedAndInfoShowsTheCpuset() throws Exception {
        try (Processes.Started server = Processes.start("server-images/jetty12", "dev.pacer.server.jetty12.Jetty12Server", "1",
                Map.of("PACER_SAMPLE_PERIOD_MS", "500"), "--mode=core", "--port=0")) {
            AgentClient agent = server.agent();
            assertThat(agent.isHealthy()).isTrue();
            HttpClient http = HttpClient.newHttpClient();
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.appPort() + "/plaintext")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
            }
            long total = 0;
            for (int attempt = 0; attempt < 40 && total < REQUESTS; attempt++) {
                Thread.sleep(100);
                total = count(agent.histograms(null));
            }
            assertThat(total).isEqualTo(REQUESTS);

            AgentInfo info = agent.info();
            assertThat(info.role()).isEqualTo("server");
            assertThat(info.cpuset()).isEqualTo("1");
            assertThat(info.cpusetSize()).isEqualTo(1);
            assertThat(info.extraFields()).containsEntry("server", "jetty12").containsEntry("variant", "core");
            assertThat(info.samplePeriodMs()).isEqualTo(500);
            assertThat(info.pid()).isEqualTo(server.process().pid());
            String metrics = agent.metricsText();
            assertThat(metrics).contains("pacer_requests_total{role=\"server\"} " + REQUESTS + ".0")
                    .contains("pacer_period_latency_seconds{role=\"server\",stat=\"p99\"}")
                    .contains("pacer_processing_seconds_count " + REQUESTS)
                    .contains("jvm_memory_used_bytes");
        }
    }

    static long count(String log) {
        HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(log.getBytes(StandardCharsets.US_ASCII)));
        long total = 0;
        EncodableHistogram next;
        while ((next = reader.nextIntervalHistogram()) != null) {
            total += ((Histogram) next).getTotalCount();
        }
        return total;
    }
}
