package dev.pacer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

class BenchmarkRunValidationTest {
    static BenchmarkRun read(String yaml) throws IOException {
        return BenchmarkRunYaml.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "test.yaml");
    }

    static final String VALID = """
            apiVersion: pacer.dev/v1alpha1
            kind: BenchmarkRun
            metadata: {name: ok}
            spec:
              server: {image: pacer/server-jetty12:0.1.0, args: ["--mode=core"], cpus: "4", labels: {server: jetty12, variant: core}}
              clients: {count: 4, rate: 60k, connections: 16, cpus: "2"}
              warmup: 60s
              duration: 180s
              criteria: {maxP99: 10ms, maxErrorRatio: 0, rateTolerance: 1%}
            """;

    /** The stall meter watches at a wake-up interval above 1 ms, in whole ms: a stall limit must leave it room, as the send lag's does. */
    @Test
    void aClientStallLimitIsAtLeastTwiceAWakeupIntervalAbove1MsInWholeMilliseconds() throws IOException {
        String wide = VALID.replace("cpus: \"2\"}", "cpus: \"2\", minWakeupIntervalMicros: 4000}");
        assertThat(BenchmarkRunValidation.validate(read(wide.replace("rateTolerance: 1%", "rateTolerance: 1%, maxClientStall: 8ms"))
                .getSpec())).isEmpty();
        assertThat(BenchmarkRunValidation.validate(read(wide.replace("rateTolerance: 1%", "rateTolerance: 1%, maxClientStall: 7ms"))
                .getSpec())).singleElement().satisfies(problem -> {
                    assertThat(problem.field()).isEqualTo("spec.criteria.maxClientStall");
                    assertThat(problem.message()).contains("at least 8ms for minWakeupIntervalMicros 4000").contains("was 7ms");
                });
        String at1000 = VALID.replace("cpus: \"2\"}", "cpus: \"2\", minWakeupIntervalMicros: 1000}");
        assertThat(BenchmarkRunValidation.validate(read(at1000.replace("rateTolerance: 1%", "rateTolerance: 1%, maxClientStall: 1ms"))
                .getSpec())).as("at 1000 µs the meter keeps its 1 ms").isEmpty();
        String at1500 = VALID.replace("cpus: \"2\"}", "cpus: \"2\", minWakeupIntervalMicros: 1500}");
        assertThat(BenchmarkRunValidation.validate(read(at1500.replace("rateTolerance: 1%", "rateTolerance: 1%, maxClientStall: 3ms"))
                .getSpec())).as("1500 µs is watched at 2 ms, as a selector waits").singleElement()
                .satisfies(problem -> assertThat(problem.message()).contains("at least 4ms for minWakeupIntervalMicros 1500"));
        assertThat(BenchmarkRunValidation.validate(read(at1500.replace("rateTolerance: 1%", "rateTolerance: 1%, maxClientStall: 4ms"))
                .getSpec())).isEmpty();
    }

    @Test
    void designExampleIsValidWithDefaults() throws IOException {
        BenchmarkRun run = read(VALID);
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).isEmpty();
        assertThat(run.getSpec().samplePeriod).isEqualTo("1s");
        assertThat(run.getSpec().timeout).isEqualTo("30m");
        assertThat(run.getSpec().placement.pinCpus).isTrue();
    }

    @Test
    void theParsedSpecCarriesEveryValueThePlannerReadsWithItsDefaults() throws IOException {
        BenchmarkRunValidation.Parsed http1 = BenchmarkRunValidation.check(read(VALID).getSpec()).parsed();
        assertThat(http1.serverCpuMillis()).isEqualTo(4000L);
        assertThat(http1.measure()).as("unset measure: the agent").isEqualTo(Measure.AGENT);
        assertThat(http1.ratePerClient()).isEqualTo(60_000L);
        assertThat(http1.httpVersion()).isEqualTo(SpecDefaults.HTTP_VERSION);
        assertThat(http1.connectionOrder()).isEqualTo(SpecDefaults.CONNECTION_ORDER);
        assertThat(http1.maxConcurrentStreams()).as("HTTP/1.1 has no streams").isNull();
        assertThat(http1.minWakeupIntervalMicros()).as("unset: wrk2's 1 ms, within half of the default maxSendLagP99")
                .isEqualTo(SpecDefaults.minWakeupIntervalMicros(http1.maxSendLagP99()));
        assertThat(http1.warmup()).hasSeconds(60);
        assertThat(http1.samplePeriod()).hasSeconds(1);

        BenchmarkRunValidation.Parsed h2c = BenchmarkRunValidation.check(read(VALID.replace("cpus: \"2\"}", "cpus: \"2\", httpVersion: h2c}")
                .replace("labels: {server: jetty12, variant: core}", "labels: {server: jetty12, variant: core}, measure: none")).getSpec()).parsed();
        assertThat(h2c.httpVersion()).isEqualTo("h2c");
        assertThat(h2c.measure()).isEqualTo(Measure.NONE);
        assertThat(h2c.connectionOrder()).as("over HTTP/2 pacer chooses no connection").isNull();
        assertThat(h2c.maxConcurrentStreams()).isEqualTo(SpecDefaults.MAX_CONCURRENT_STREAMS);

        BenchmarkRunValidation.Checked wrong = BenchmarkRunValidation.check(read(VALID.replace("cpus: \"2\"}", "cpus: \"2\", httpVersion: h3}")
                .replace("labels: {server: jetty12, variant: core}", "labels: {server: jetty12, variant: core}, measure: ebpf")).getSpec());
        assertThat(wrong.problems()).extracting(FieldProblem::field).contains("spec.clients.httpVersion", "spec.server.measure");
        assertThat(wrong.parsed().httpVersion()).as("a value the spec got wrong is null").isNull();
        assertThat(wrong.parsed().measure()).isNull();
    }

    @Test
    void everyProblemNamesItsField() throws IOException {
        BenchmarkRun run = read(VALID.replace("rate: 60k", "rate: -5").replace("warmup: 60s", "warmup: 40m")
                .replace("cpus: \"4\"", "cpus: \"1.5\"").replace("duration: 180s", "duration: 180"));
        List<FieldProblem> problems = BenchmarkRunValidation.validate(run.getSpec());
        assertThat(problems).extracting(FieldProblem::field)
                .containsExactlyInAnyOrder("spec.clients.rate", "spec.server.cpus", "spec.duration");
        run = read(VALID.replace("warmup: 60s", "warmup: 40m"));
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).singleElement()
                .satisfies(p -> assertThat(p.toString()).startsWith("spec.timeout: must be longer than spec.warmup + spec.duration"));
    }

    @Test
    void missingRequiredFields() throws IOException {
        BenchmarkRun run = read("""
                kind: BenchmarkRun
                metadata: {name: x}
                spec:
                  clients: {rate: 10k}
                """);
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).extracting(FieldProblem::field)
                .contains("spec.server", "spec.clients.count", "spec.duration");
    }

    @Test
    void unknownFieldsAreNamed() {
        assertThatThrownBy(() -> read(VALID.replace("warmup: 60s", "warmpu: 60s")))
                .isInstanceOf(BenchmarkRunYaml.InvalidSpecException.class).hasMessageContaining("spec.warmpu: unknown field");
    }

    @Test
    void everyExampleIsValid() throws IOException {
        Path examples = Path.of("..", "examples");
        try (Stream<Path> files = Files.walk(examples)) {
            List<Path> yamls = files.filter(f -> f.toString().endsWith(".yaml")).toList();
            assertThat(yamls).isNotEmpty();
            for (Path yaml : yamls) {
                if (BenchmarkSuite.KIND.equals(BenchmarkRunYaml.kind(yaml))) {
                    assertThat(BenchmarkSuiteValidation.validate(BenchmarkRunYaml.readSuite(yaml).getSpec())).as(yaml.toString()).isEmpty();
                } else if (BenchmarkSchedule.KIND.equals(BenchmarkRunYaml.kind(yaml))) {
                    assertThat(BenchmarkScheduleValidation.check(BenchmarkRunYaml.readSchedule(yaml)).problems()).as(yaml.toString()).isEmpty();
                } else {
                    assertThat(BenchmarkRunValidation.validate(BenchmarkRunYaml.read(yaml).getSpec())).as(yaml.toString()).isEmpty();
                }
            }
        }
    }

    @Test
    void quantitiesWrittenAsNumbersReadAsQuantities() throws IOException {
        BenchmarkRun run = read(VALID.replace("cpus: \"4\"", "cpus: 4").replace("rate: 60k", "rate: 500")
                .replace("cpus: \"2\"", "cpus: 2, memory: 1073741824"));
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).isEmpty();
        assertThat(run.getSpec().server.cpus).isEqualTo("4");
        assertThat(run.getSpec().clients.rate).isEqualTo("500");
        assertThat(run.getSpec().clients.memory).isEqualTo("1073741824");
    }

    @Test
    void boundsAndMemoryNameTheirField() throws IOException {
        BenchmarkRun run = read(VALID.replace("count: 4", "count: 100000").replace("connections: 16", "connections: 0")
                .replace("cpus: \"4\"", "cpus: \"4\", memory: lots") + "  cleanup: {ttlSecondsAfterFinished: -1}\n");
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).extracting(FieldProblem::field).containsExactlyInAnyOrder(
                "spec.clients.count", "spec.clients.connections", "spec.server.memory", "spec.cleanup.ttlSecondsAfterFinished");
    }

    @Test
    void listsMapsAndTheBodyHaveTheSchemasBounds() throws IOException {
        BenchmarkRun run = read(VALID);
        run.getSpec().server.jvmOptions = Collections.nCopies(BenchmarkRunSpec.MAX_LIST_ITEMS + 1, "-Xss1m");
        run.getSpec().clients.jvmOptions = Collections.nCopies(BenchmarkRunSpec.MAX_LIST_ITEMS, "-Xss1m");
        for (int i = 0; i <= BenchmarkRunSpec.MAX_HEADERS; i++) {
            run.getSpec().request.headers.put("X-Header-" + i, "v");
        }
        run.getSpec().request.body = "x".repeat(BenchmarkRunSpec.MAX_BODY_CHARS + 1);
        run.getSpec().server.labels.clear();
        for (int i = 0; i <= BenchmarkRunSpec.MAX_LABELS; i++) {
            run.getSpec().server.labels.put("l" + i, "v");
        }
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).extracting(FieldProblem::toString).containsExactlyInAnyOrder(
                "spec.server.jvmOptions: must hold at most 128 options, held 129",
                "spec.request.headers: must hold at most 64 headers, held 65",
                "spec.request.body: must hold at most 65536 characters, held 65537",
                "spec.server.labels: must hold at most 16 labels, held 17");
    }

    @Test
    void aPodsVolumesAreNamedOnceMountedByNameNeverOverTmpAndNeverFromTheHost() throws IOException {
        BenchmarkRun run = read(VALID.replace("labels: {server: jetty12, variant: core}}", """
                labels: {server: jetty12, variant: core}, pod: {
                    volumes: [{name: conf, configMap: {name: c}}, {name: conf, emptyDir: {}}, {name: tmp, emptyDir: {}}, {name: host, hostPath: {path: /etc}}, {emptyDir: {}}],
                    volumeMounts: [{name: conf, mountPath: /etc/conf}, {name: cnf, mountPath: /etc/x}, {name: host, mountPath: /tmp/}, {name: host, mountPath: relative}]}}"""));
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).extracting(FieldProblem::toString).containsExactlyInAnyOrder(
                "spec.server.pod.volumes[1].name: 'conf' names two volumes: names must differ",
                "spec.server.pod.volumes[2].name: 'tmp' is pacer's own volume (an emptyDir on /tmp): name yours otherwise",
                "spec.server.pod.volumes[3].hostPath: is refused: pacer's pods keep the restricted Pod Security Standard, which forbids host paths; use a configMap, secret or emptyDir",
                "spec.server.pod.volumes[4].name: is required",
                "spec.server.pod.volumeMounts[1].name: 'cnf' is none of spec.server.pod.volumes: add the volume, or mount one of [conf, host]",
                "spec.server.pod.volumeMounts[2].mountPath: /tmp is pacer's (an emptyDir of every pod): mount elsewhere",
                "spec.server.pod.volumeMounts[3].mountPath: is required, an absolute path, e.g. /etc/nginx/conf.d");
    }

    @Test
    void httpsIsSetUpByItsOwnFieldsAndEachBadCombinationNamesTheFieldAndTheFix() throws IOException {
        String https = VALID.replace("  warmup: 60s", "  request: {scheme: https}\n  warmup: 60s");
        BenchmarkRun run = read(https.replace("connections: 16,", "connections: 16, httpVersion: h2,")
                + "  tls: {protocols: [TLSv1.3], sessionResumption: false, requestsPerConnection: 100}\n");
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).isEmpty();
        assertThat(read(https).getSpec().tls).as("unset: the defaults of an https run").isNull();

        assertThat(problems(VALID.replace("connections: 16,", "connections: 16, httpVersion: h2,"))).containsExactly(
                "spec.clients.httpVersion: h2 is HTTP/2 over TLS (chosen by ALPN): set spec.request.scheme to https, or use h2c for HTTP/2 in cleartext");
        assertThat(problems(https.replace("connections: 16,", "connections: 16, httpVersion: h2c,"))).containsExactly(
                "spec.clients.httpVersion: h2c is HTTP/2 in cleartext: over https use h2 (or http/1.1), or set spec.request.scheme to http");
        assertThat(problems(VALID + "  tls: {sessionResumption: false}\n")).containsExactly(
                "spec.tls: applies to https only: set spec.request.scheme to https, or remove spec.tls");
        assertThat(problems(https.replace("cpus: \"4\",", "cpus: \"4\", measure: probe,"))).singleElement().asString()
                .startsWith("spec.request.scheme: must not be https when spec.server.measure is probe or both: the kernel probe times");
        assertThat(problems(https + "  tls: {protocols: [TLSv1.1, TLSv1.3], requestsPerConnection: -1, certificate: {secretName: s, directory: d}}\n"))
                .containsExactlyInAnyOrder(
                        "spec.tls.protocols: must list TLSv1.3 and/or TLSv1.2 (older versions are broken and refused by current JDKs), listed 'TLSv1.1'",
                        "spec.tls.requestsPerConnection: must be in [0, 1000000] (0: a connection is kept for the whole run), was -1",
                        "spec.tls.certificate: must name either secretName (Kubernetes) or directory (locally); unset, a certificate is generated for the run, not both");
        assertThat(problems(https.replace("scheme: https", "scheme: ftp"))).containsExactly("spec.request.scheme: must be http or https, was 'ftp'");
    }

    @Test
    void aWakeUpIntervalOverHalfTheSendLagLimitIsRefusedWithTheLargestThatFits() throws IOException {
        String wrk2Like = VALID.replace("connections: 16,", "connections: 16, minWakeupIntervalMicros: 1000,");
        assertThat(problems(wrk2Like)).as("1 ms against the default limit, 10 ms").isEmpty();
        assertThat(problems(wrk2Like.replace("maxP99: 10ms,", "maxP99: 10ms, maxSendLagP99: 2ms,"))).as("exactly half").isEmpty();
        assertThat(problems(wrk2Like.replace("maxP99: 10ms,", "maxP99: 10ms, maxSendLagP99: 1.5ms,"))).containsExactly(
                "spec.clients.minWakeupIntervalMicros: " + BenchmarkRunSpec.WAKEUP_INTERVAL_SEND_LAG_MESSAGE
                        + " (at most 500 for maxSendLagP99 1.5ms); was 1000");
        assertThat(read(VALID).getSpec().clients.minWakeupIntervalMicros).as("unset, the planner narrows it to the limit").isNull();
        assertThat(problems(VALID.replace("maxP99: 10ms,", "maxP99: 10ms, maxSendLagP99: 0.08ms,"))).as("unset: no interval to refuse")
                .isEmpty();
        assertThat(problems(VALID.replace("connections: 16,", "connections: 16, minWakeupIntervalMicros: 0,")
                .replace("maxP99: 10ms,", "maxP99: 10ms, maxSendLagP99: 0.08ms,"))).as("0: no batching").isEmpty();
    }

    static List<String> problems(String yaml) throws IOException {
        return BenchmarkRunValidation.validate(read(yaml).getSpec()).stream().map(FieldProblem::toString).toList();
    }
}
