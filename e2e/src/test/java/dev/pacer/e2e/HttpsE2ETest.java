package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.pacer.api.RunResult;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.HistogramLogReader;
import org.assertj.core.data.Offset;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * https runs end to end with {@code pacer run}: a certificate made for the run, the server's agent and the client counting
 * the same requests and the same handshakes, a bad certificate failing the run with its reason.
 */
class HttpsE2ETest {
    /** LocalRuns.spec's connections per client. */
    private static final int CONNECTIONS = 4;

    @TempDir
    Path work;

    static String spec(String name, String image, String mode, String version, String tls) {
        return LocalRuns.spec(name, image, mode, "200", "/plaintext", "2s", "3s")
                .replace("connections: " + CONNECTIONS + ",", "connections: " + CONNECTIONS + ", httpVersion: " + version + ",")
                .replace("request: {path: \"/plaintext\"}", "request: {path: \"/plaintext\", scheme: https}\n  tls: " + tls);
    }

    /** Every handshake in a role's handshake log, over the whole run. */
    static long handshakes(Path runDirectory, String role) throws IOException {
        Path log = runDirectory.resolve(role + ".handshake.hlog");
        assertThat(log).exists();
        long total = 0;
        try (InputStream in = Files.newInputStream(log)) {
            HistogramLogReader reader = new HistogramLogReader(in);
            for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
                total += ((org.HdrHistogram.AbstractHistogram) h).getTotalCount();
            }
        }
        return total;
    }

    @ParameterizedTest(name = "{0} {1} over {2}")
    @CsvSource({"jetty12, --mode=core, http/1.1", "jetty12, --mode=ee10, h2", "jetty12-ee9, --mode=ee9, h2", "jetty11, --mode=servlet, h2", "loom, --mode=virtual-threads, http/1.1"})
    void aServerAnswersOverTlsAndItsAgentCountsWhatTheClientSent(String image, String mode, String version) throws Exception {
        LocalRuns.Outcome outcome = LocalRuns.run(work, "tls", spec("tls", image, mode, version, "{sessionResumption: false}"));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        RunResult result = outcome.document().result();
        assertThat(result.clients.errors).isZero();
        assertThat(result.clients.requests).isPositive();
        assertThat(result.server.requests).isCloseTo(result.clients.requests, Percentage.withPercentage(2));
        // connections kept for the run: one handshake each (h2: the client's 4 connections too), on both sides
        assertThat(handshakes(outcome.directory(), "client-0")).isEqualTo(4);
        if (!image.equals("loom")) {   // the JDK's server tells nothing of its handshakes
            assertThat(handshakes(outcome.directory(), "server")).isEqualTo(4);
        }
        assertThat(result.tls.clientHandshakes).isEqualTo(4);
        assertThat(result.tls.serverHandshakes).isEqualTo(image.equals("loom") ? null : 4L);
        assertThat(result.tls.handshakesPerSecond).as("connections kept: none in the window").isZero();
        assertThat(result.tls.clientHandshakeP99Micros).isPositive();
        assertThat(outcome.out()).contains("tls     handshakes: clients 4");
        assertThat(Files.readString(outcome.directory().resolve("report.html"))).contains("id=\"tls-figures\"");
        assertThat(outcome.directory().resolve("tls/tls.crt")).exists();
        assertThat(outcome.directory().resolve("tls/tls.key")).as("the run's own key, gone with the run").doesNotExist();
        assertThat(outcome.out()).doesNotContain("PRIVATE KEY");
    }

    /**
     * Go's net/http, a server without pacer's agent, reading its certificate from PACER_TLS_CERT and PACER_TLS_KEY, over h2: judged by
     * the clients; ready once its readiness path answers over TLS.
     */
    @Test
    void aServerWithoutTheAgentServesHttpsFromTheCertificatePacerGivesIt() throws Exception {
        String version = "h2";
        String spec = spec("go", "jetty12", "--mode=core", version, "{sessionResumption: true}")
                .replace("server: {image: jetty12, args: [--mode=core], cpus: \"1\"}", "server: {image: go-net-http, cpus: \"1\", measure: none, "
                        + "readinessPath: /, command: [\"" + Processes.HOME.resolve("server-images/gohttp/target/pacer-gohttp") + "\", \"--port=${PORT}\"]}");
        LocalRuns.Outcome outcome = LocalRuns.run(work, "go", spec);
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        RunResult result = outcome.document().result();
        assertThat(result.clients.errors).isZero();
        assertThat(result.clients.achievedRate).isCloseTo(200.0, Percentage.withPercentage(3));
        assertThat(result.tls.clientHandshakes).isEqualTo(4);
        assertThat(result.tls.serverHandshakes).as("no agent: the server tells nothing").isNull();
    }

    @Test
    void connectionsRenewedUnderLoadShakeHandsOnBothSidesAlike() throws Exception {
        LocalRuns.Outcome outcome = LocalRuns.run(work, "renew", spec("renew", "jetty12", "--mode=core", "http/1.1",
                "{sessionResumption: true, requestsPerConnection: 50}"));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        long client = handshakes(outcome.directory(), "client-0");
        // 200 req/s for 5 s over connections retired after 50 responses: some 20 more than the first 4; the run's own count
        assertThat(client).isGreaterThan(4 + outcome.document().result().clients.requests / 50 / 2);
        // a connection renewed as the run stops may have finished its handshake on one side only: one per connection at most
        long server = handshakes(outcome.directory(), "server");
        assertThat(server).isCloseTo(client, Offset.offset((long) CONNECTIONS));
        RunResult.TlsFigures tls = outcome.document().result().tls;
        assertThat(tls.clientHandshakes).isEqualTo(client);
        assertThat(tls.serverHandshakes).isEqualTo(server);
        assertThat(tls.handshakesPerSecond).as("200 req/s, a new connection every 50").isGreaterThan(0.0);
    }

    @Test
    void aCertificateForAnotherHostFailsTheRunNamingIt() throws Exception {
        Path certificates = work.resolve("certs");
        Files.createDirectories(certificates);
        java.time.Instant now = java.time.Instant.now();
        dev.pacer.engine.tls.RunCertificate other = dev.pacer.engine.tls.RunCertificate.selfSigned(java.util.List.of("server.example"),
                now.minusSeconds(60), now.plusSeconds(86_400));
        Files.writeString(certificates.resolve("tls.crt"), other.certificatePem());
        Files.writeString(certificates.resolve("tls.key"), other.keyPem());
        LocalRuns.Outcome outcome = LocalRuns.run(work, "mismatch", spec("mismatch", "jetty12", "--mode=core", "http/1.1",
                "{certificate: {directory: " + certificates + "}}"));
        assertThat(outcome.exitCode()).isEqualTo(3);
        assertThat(outcome.out() + outcome.err()).contains("the server's certificate does not name the host the clients connect to");
    }
}
