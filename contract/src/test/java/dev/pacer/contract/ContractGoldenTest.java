package dev.pacer.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The JSON of the contract is pinned by golden files: an agent in another language (the kernel probe, in Go) is
 * written against them. Each record written equals its file, and each file read gives the record back.
 */
class ContractGoldenTest {

    static RunRequest request() {
        return new RunRequest("http://10.1.2.3:8080", 60_000, 16, 0, RunRequest.HTTP_1_1,
                new RunRequest.HttpRequestSpec("GET", "/plaintext", Map.of("Accept", "text/plain"), ""),
                60_000, 180_000, 1_000, 1_795_355_476_000L, 30_000, 20_000, null, 50);
    }

    /** h2 over TLS, resumption off, a new connection every 1,000 responses. */
    static RunRequest httpsRequest() {
        return new RunRequest("https://10.1.2.3:8443", 20_000, 100, 0, RunRequest.H2,
                new RunRequest.HttpRequestSpec("GET", "/", Map.of(), ""), 10_000, 30_000, 1_000, 0L, 30_000, 0,
                new RunRequest.Tls(List.of("TLSv1.3"), false, 1_000,
                        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUZ3Jvd24tZm9yLXRoZS1ydW4wCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n"));
    }

    static LoadRunStatus measuring() {
        Map<String, Long> errorsByKind = new LinkedHashMap<>();
        errorsByKind.put("timeout", 0L);
        errorsByKind.put("io", 1L);
        errorsByKind.put("status_4xx", 0L);
        errorsByKind.put("status_5xx", 2L);
        Map<String, Long> classes = new LinkedHashMap<>();
        classes.put("1xx", 0L);
        classes.put("2xx", 3_599_997L);
        classes.put("3xx", 0L);
        classes.put("4xx", 0L);
        classes.put("5xx", 2L);
        return new LoadRunStatus(LoadRunStatus.State.MEASURING, "http://10.1.2.3:8080", 60_000, 60_000.0, 59_998.5, 3, 16,
                14_400_000L, 4_200_000L, 0L, false, 4_199_990L, 599_970L, 3L, errorsByKind, classes, 10L, 48L, 0L,
                new LoadRunStatus.Window(1_795_355_537_000L, 1_795_355_717_000L), 1_795_355_476_000L, null, 2L, 1_000L, 12L,
                Map.of("IOException: Connection reset by peer", 1L));
    }

    static AgentInfo serverInfo() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("server", "jetty12");
        extra.put("mode", "core");
        extra.put("appPort", 8080);
        return new AgentInfo(AgentContract.ROLE_SERVER, "0.1.0", AgentInfo.MEASURED_BY_AGENT, 7L, "br-server", 65532, "2-3", 2, 2,
                null, new AgentInfo.Jvm("21.0.9+10-LTS", "Eclipse Adoptium", "OpenJDK 64-Bit Server VM",
                List.of("-XX:ActiveProcessorCount=2", "-Xmx512m"), 536_870_912L),
                1_795_355_400_000L, 1_000L, List.of(AgentContract.SERIES_PROCESSING), extra);
    }

    static AgentInfo probeInfo() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("listen", "0.0.0.0:8080");
        extra.put("droppedRecords", 0);
        return new AgentInfo(AgentContract.ROLE_SERVER, "0.1.0", AgentInfo.MEASURED_BY_PROBE, 4242L, "node-1", 0, "0", 1, null,
                "6.1.0-27-amd64", null, 1_795_355_400_000L, 1_000L,
                List.of(AgentContract.SERIES_SERVICE, AgentContract.SERIES_RESIDENCE), extra);
    }

    static ResourceUse resources() {
        return new ResourceUse(7L, 1_000L, 2, true, List.of(
                new ResourceUse.Sample(1_795_355_400_417L, 1_795_355_401_000L, 310_000_000L, 88_080_384L, 90_177_536L, 12L, 2L,
                        4_000_000L, 14_100L, 2_100L),
                new ResourceUse.Sample(1_795_355_401_000L, 1_795_355_402_000L, 1_620_000_000L, 134_217_728L, 141_557_760L, 3L, 1L,
                        95_000_000L, 3_200L, 9_800L)));
    }

    @Test
    void resourceUse() throws IOException {
        assertRoundTrip(resources(), ResourceUse.class, "resources.json");
    }

    @Test
    void runRequest() throws IOException {
        assertRoundTrip(request(), RunRequest.class, "run-request.json");
    }

    @Test
    void runRequestOverTls() throws IOException {
        assertRoundTrip(httpsRequest(), RunRequest.class, "run-request-https.json");
        assertThat(httpsRequest().problems()).isEmpty();
    }

    @Test
    void anHttpsTargetWithoutACertificateToTrustIsRefusedNamingTheField() {
        RunRequest https = httpsRequest();
        RunRequest untrusting = new RunRequest(https.targetUrl(), 100, 1, 0, RunRequest.HTTP_1_1, https.request(), 0, 1_000, 1_000, 0,
                0, 0, new RunRequest.Tls(List.of("TLSv1.3"), true, 0, null));
        assertThat(untrusting.problems()).containsExactly(
                "tls.trustedCertificatesPem (or tls.trustedCertificatesFile) is required with an https targetUrl: the certificate to trust, PEM");
        RunRequest h2OverHttp = new RunRequest("http://10.1.2.3:8080", 100, 1, 0, RunRequest.H2, https.request(), 0, 1_000, 1_000, 0,
                0, 0);
        assertThat(h2OverHttp.problems()).singleElement().asString().startsWith("httpVersion h2 needs an https targetUrl");
    }

    @Test
    void runStart() throws IOException {
        assertRoundTrip(new RunStart(1_795_355_476_000L), RunStart.class, "run-start.json");
        assertRoundTrip(new AgentClock(1_795_355_476_123_456L), AgentClock.class, "agent-clock.json");
    }

    @Test
    void runWindow() throws IOException {
        assertRoundTrip(new RunWindow(1_795_355_537_000L), RunWindow.class, "run-window.json");
    }

    @Test
    void runStatusMeasuring() throws IOException {
        assertRoundTrip(measuring(), LoadRunStatus.class, "run-status-measuring.json");
    }

    @Test
    void runStatusIdleIsTheStateAlone() throws IOException {
        assertRoundTrip(LoadRunStatus.idle(), LoadRunStatus.class, "run-status-idle.json");
        assertThat(ContractJson.MAPPER.writeValueAsString(LoadRunStatus.idle()).replaceAll("\\s", "")).isEqualTo("{\"state\":\"idle\"}");
    }

    @Test
    void serverInfoKeepsItsExtraFieldsFlat() throws IOException {
        assertRoundTrip(serverInfo(), AgentInfo.class, "agent-info-server.json");
        AgentInfo read = ContractJson.MAPPER.readValue(ContractJson.MAPPER.writeValueAsString(serverInfo()), AgentInfo.class);
        assertThat(read.extra("mode")).isEqualTo("core");
        assertThat(read.jvm().arguments()).contains("-Xmx512m");
    }

    @Test
    void probeInfo_namesWhatMeasuredAndTheKernel() throws IOException {
        assertRoundTrip(probeInfo(), AgentInfo.class, "agent-info-probe.json");
    }

    @Test
    void unknownFieldsOfANewerAgentAreIgnored() throws IOException {
        LoadRunStatus runStatus = ContractJson.MAPPER.readValue("{\"state\":\"done\",\"sent\":5,\"someNewField\":[1,2]}", LoadRunStatus.class);
        assertThat(runStatus.state()).isEqualTo(LoadRunStatus.State.DONE);
        assertThat(runStatus.sent()).isEqualTo(5);
    }

    @Test
    void requestProblemsNameTheirField() {
        RunRequest bad = new RunRequest("ftp://x", 0, 0, -1, "h3", new RunRequest.HttpRequestSpec("GET", "nope", Map.of(), ""),
                -1, 0, 1000, -1, 0, 5_000, null, 5_001);
        assertThat(bad.problems()).hasSize(11).anySatisfy(p -> assertThat(p).startsWith("rampUpMs must be at most warmupMs")).anySatisfy(p -> assertThat(p).startsWith("targetUrl"))
                .anySatisfy(p -> assertThat(p).startsWith("request.path")).anySatisfy(p -> assertThat(p).startsWith("httpVersion"))
                .anySatisfy(p -> assertThat(p).startsWith("minWakeupIntervalMicros must be in [0, 5000]"));
        assertThat(request().problems()).isEmpty();
    }

    @Test
    void cpuLists() {
        assertThat(CpuList.count("0-3,6")).isEqualTo(5);
        assertThat(CpuList.cpus(" 1,3-4 ")).containsExactly(1, 3, 4);
        assertThat(CpuList.format(List.of(1, 2, 5))).isEqualTo("1,2,5");
        Assertions.assertThatThrownBy(() -> CpuList.parse("3-1")).hasMessageContaining("bad CPU range '3-1'");
        Assertions.assertThatThrownBy(() -> CpuList.parse("")).hasMessageContaining("empty");
        Assertions.assertThatThrownBy(() -> CpuList.parse("a")).hasMessageContaining("bad CPU range 'a'");
    }

    private static <T> void assertRoundTrip(T value, Class<T> type, String file) throws IOException {
        String json = ContractJson.MAPPER.writeValueAsString(value) + "\n";
        Golden.assertMatches(json, file);
        T read = ContractJson.MAPPER.readValue(Files.readString(Path.of("src/test/resources/golden", file)), type);
        assertThat(read).isEqualTo(value);
    }
}
