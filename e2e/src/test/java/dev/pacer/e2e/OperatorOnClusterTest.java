package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteSpec;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.RunTemplate;
import dev.pacer.api.Verdict;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.operator.OperatorSettings;
import dev.pacer.operator.PacerOperator;
import dev.pacer.operator.ProbeSettings;
import dev.pacer.operator.access.AgentAccess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator on the test cluster (test/cluster: a real kubelet with containerd and the static CPU manager, pacer's
 * images): runs go from {@code kubectl apply} to figures in the status, {@code kubectl get br} and {@code /metrics}.
 * The operator runs in this JVM, outside the pod network, so it reaches the agents through the API server's pod
 * proxy; the runs live in a namespace that enforces the {@code restricted} Pod Security Standard.
 * <p>
 * The node has one exclusive CPU, which each run's pinned server takes: runs go one after the other.
 * Started by test/cluster/operator-e2e.sh with {@code -Dpacer.kubeconfig}.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorOnClusterTest {
    static final String NAMESPACE = "pacer-e2e";
    /** The operator's namespace, where probe pods run: it admits privileged pods (no Pod Security label). */
    static final String PROBE_NAMESPACE = "pacer-e2e-operator";
    static final Duration RUN_LIMIT = Duration.ofMinutes(4);
    static Path kubeconfig;
    static KubernetesClient client;
    static PacerOperator operator;

    @BeforeAll
    static void start() throws Exception {
        kubeconfig = Path.of(System.getProperty("pacer.kubeconfig", System.getProperty("user.home") + "/.cache/pacer/k8s/cluster/admin-host.kubeconfig"));
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
        ApiServerFixtures.applyCommittedCrd(client);
        // a namespace left terminating by an earlier attempt must be gone before it is made again
        await().atMost(Duration.ofMinutes(2)).until(() -> {
            var existing = client.namespaces().withName(NAMESPACE).get();
            return existing == null || existing.getMetadata().getDeletionTimestamp() == null;
        });
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE)
                .addToLabels("pod-security.kubernetes.io/enforce", "restricted")
                .addToLabels("pod-security.kubernetes.io/enforce-version", "latest").endMetadata().build()).serverSideApply();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(PROBE_NAMESPACE).endMetadata().build())
                .serverSideApply();
        operator = startOperator();
    }

    static PacerOperator startOperator() throws IOException {
        return PacerOperator.start(client, new OperatorSettings(AgentAccess.API_SERVER_PROXY, Set.of(NAMESPACE), 0,
                RunPlanner.DEFAULT_CLIENT_IMAGE,
                new ProbeSettings(OperatorSettings.DEFAULT_PROBE_IMAGE, PROBE_NAMESPACE)));
    }

    @AfterEach
    void deleteRuns() {
        client.resources(BenchmarkRun.class).inNamespace(NAMESPACE).delete();
        // the next run's server needs the node's one exclusive CPU: wait for every pod to be gone
        await().atMost(Duration.ofMinutes(1)).until(() -> client.pods().inNamespace(NAMESPACE).list().getItems().isEmpty());
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.close();
        }
        if (client != null) {
            client.namespaces().withName(NAMESPACE).delete();
            client.namespaces().withName(PROBE_NAMESPACE).delete();
            client.close();
        }
    }

    @Test
    @Order(1)
    void clusterQuickstartSucceedsWithItsFiguresInTheStatusKubectlAndMetrics() throws Exception {
        kubectl("apply", "-n", NAMESPACE, "-f", Processes.HOME.resolve("examples/cluster-quickstart.yaml").toString());
        Set<Phase> seen = EnumSet.noneOf(Phase.class);
        boolean[] progressSeen = {false};
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            BenchmarkRunStatus status = status("cluster-quickstart");
            if (status == null || status.phase == null) {
                return false;
            }
            seen.add(status.phase);
            progressSeen[0] |= status.progress != null && status.progress.achievedRate != null && status.progress.achievedRate > 0;
            assertThat(status.phase).as("conditions: %s", status.conditions).isNotEqualTo(Phase.Failed);
            return status.phase == Phase.Succeeded;
        });
        assertThat(seen).as("phases seen while polling").contains(Phase.Starting, Phase.Measuring, Phase.Succeeded);
        assertThat(progressSeen[0]).as("status.progress showed an achieved rate during the run").isTrue();

        BenchmarkRunStatus status = status("cluster-quickstart");
        assertThat(status.load).isEqualTo("2x200");
        assertThat(status.result.server.histogramsAvailable).isTrue();
        assertThat(status.result.server.samples).isEqualTo(15);
        assertThat(status.result.server.p99IntegralMicros).isPositive();
        assertThat(status.result.server.maxIntegralMicros).isGreaterThanOrEqualTo(status.result.server.p99IntegralMicros);
        assertThat(status.result.clients.requests).isPositive();
        assertThat(status.result.verdict).isNotNull();
        assertThat(status.result.reasons).noneMatch(r -> r.contains("pinned"));
        // every pod says which image ran, by the digest the node ran
        assertThat(status.pods).allSatisfy(p -> {
            assertThat(p.image).startsWith("pacer/");
            assertThat(p.imageId).contains("sha256:");
        });

        // the effective cpusets: the server alone on one exclusive CPU, the clients in the shared pool beside it
        assertThat(status.pods).extracting(p -> p.role).containsExactly("server", "client-0", "client-1");
        BenchmarkRunStatus.PodStatus server = status.pods.getFirst();
        assertThat(server.cpuset).matches("[0-9]+");
        assertThat(server.pinned).isTrue();
        assertThat(server.node).isNotBlank();
        for (BenchmarkRunStatus.PodStatus c : status.pods.subList(1, 3)) {
            assertThat(c.pinned).isNull();
            assertThat(c.cpuset).isNotBlank().doesNotContain(server.cpuset);
        }
        assertThat(condition(status, RunConditions.CPUS_PINNED).getStatus()).isEqualTo("True");
        assertThat(condition(status, RunConditions.READY).getStatus()).isEqualTo("True");

        String table = kubectl("get", "br", "-n", NAMESPACE);
        assertThat(table.lines().findFirst().orElseThrow()).contains("P99-INT-US", "MAX-INT-US", "PHASE", "VERDICT");
        assertThat(table).contains("cluster-quickstart", "2x200", "Succeeded", Long.toString(status.result.server.p99IntegralMicros),
                status.result.verdict.name());

        String metrics = get("http://127.0.0.1:" + operator.metricsPort() + "/metrics");
        String labels = "namespace=\"pacer-e2e\",run=\"cluster-quickstart\",server=\"jetty12\",variant=\"core\"";
        assertThat(metrics).contains("pacer_run_p99_integral_seconds{" + labels + "} " + status.result.server.p99IntegralMicros / 1e6);
        assertThat(metrics).contains("pacer_run_max_integral_seconds{" + labels + "}", "pacer_run_achieved_rate{" + labels + "}");
        assertThat(metrics.lines().filter(l -> l.startsWith("pacer_run_latency_seconds{") && l.contains("run=\"cluster-quickstart\"")
                && l.contains("role=\"server\"") && l.contains("stat=\"p99\"")))
                .singleElement().satisfies(l -> assertThat(l).endsWith(" " + status.result.server.p99Micros / 1e6));
        assertThat(metrics).containsPattern("pacer_run_info\\{[^}]*phase=\"Succeeded\"[^}]*run=\"cluster-quickstart\"");
        assertThat(metrics).contains("pacer_operator_reconciliations_started_total{kind=\"BenchmarkRun\"}");

        List<String> reasons = events("cluster-quickstart").stream().map(Event::getReason).toList();
        assertThat(reasons).contains("Starting", "LoadScheduled");
        // spec.cleanup.pods: OnSuccess frees the node's exclusive CPU once the run was carried out, whatever its verdict
        await().atMost(Duration.ofSeconds(60)).until(() -> client.pods().inNamespace(NAMESPACE)
                .withLabel("pacer.dev/run", "cluster-quickstart").list().getItems().isEmpty());
    }

    @Test
    @Order(2)
    void anOperatorRestartedMidRunResumesTheRun() throws Exception {
        BenchmarkRun run = clusterQuickstart("resumed");
        client.resource(run).create();
        await().atMost(RUN_LIMIT).until(() -> {
            BenchmarkRunStatus status = status("resumed");
            return status != null && (status.phase == Phase.WarmingUp || status.phase == Phase.Measuring);
        });
        Long startAt = status("resumed").startAtEpochMs;
        operator.close();
        Thread.sleep(4000);   // the load goes on without an operator
        operator = startOperator();
        await().atMost(RUN_LIMIT).until(() -> status("resumed").phase.isFinal());
        BenchmarkRunStatus status = status("resumed");
        assertThat(status.phase).as("conditions: %s", status.conditions).isEqualTo(Phase.Succeeded);
        assertThat(status.startAtEpochMs).as("the barrier posted before the restart").isEqualTo(startAt);
        assertThat(status.result.server.samples).isEqualTo(15);
        assertThat(status.result.server.p99IntegralMicros).isPositive();
    }

    @Test
    @Order(3)
    void aClientPodDeletedMidRunFailsTheRunNamingIt() throws Exception {
        client.resource(clusterQuickstart("lost-client")).create();
        await().atMost(RUN_LIMIT).until(() -> {
            BenchmarkRunStatus status = status("lost-client");
            return status != null && (status.phase == Phase.WarmingUp || status.phase == Phase.Measuring);
        });
        client.pods().inNamespace(NAMESPACE).withName("lost-client-client-1").withGracePeriod(0).delete();
        await().atMost(Duration.ofSeconds(60)).until(() -> status("lost-client").phase == Phase.Failed);
        Condition ready = condition(status("lost-client"), RunConditions.READY);
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getMessage()).contains("lost-client-client-1");
        assertThat(events("lost-client")).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage()).contains("lost-client-client-1");
        });
    }

    @Test
    @Order(4)
    void anImageThatCannotBePulledShowsInTheConditionsAndEventsWithinSeconds() throws Exception {
        BenchmarkRun run = clusterQuickstart("no-image");
        run.getSpec().server.image = "pacer/no-such-server:0.0.0";
        client.resource(run).create();
        Set<String> pullReasons = Set.of("ErrImagePull", "ImagePullBackOff");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Condition pods = condition(status("no-image"), RunConditions.PODS_READY);
            assertThat(pods).isNotNull();
            assertThat(pods.getStatus()).isEqualTo("False");
            assertThat(pods.getReason()).isIn(pullReasons);
            assertThat(pods.getMessage()).contains("no-image-server", "pacer/no-such-server:0.0.0");
        });
        assertThat(status("no-image").phase).isEqualTo(Phase.Starting);
        assertThat(events("no-image")).anySatisfy(e -> assertThat(e.getReason()).isIn(pullReasons));
    }

    /** Jetty 12 without its agent's help: the kernel probe times its requests from the operator's namespace. */
    @Test
    @Order(5)
    void aServerInARestrictedNamespaceIsMeasuredByTheKernelProbe() throws Exception {
        BenchmarkRun run = clusterQuickstart("probed");
        run.getSpec().server.measure = "probe";
        run.getSpec().cleanup.pods = "Never";   // the pods are looked at after the run
        client.resource(run).create();
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            BenchmarkRunStatus status = status("probed");
            return status != null && status.phase != null && status.phase.isFinal();
        });
        BenchmarkRunStatus status = status("probed");
        assertThat(status.phase).as("conditions: %s", status.conditions).isEqualTo(Phase.Succeeded);
        RunResult.ServerFigures server = status.result.server;
        assertThat(server.measuredBy).isEqualTo("probe");
        assertThat(server.series).isEqualTo("service");
        assertThat(server.samples).isEqualTo(15);
        if (status.result.verdict == Verdict.Passed) {
            // the probe saw every request the clients had answered in the window
            assertThat(server.requests).isCloseTo(status.result.clients.requests, Percentage.withPercentage(2));
        } else {
            // a machine too busy for the clients (BestEffort pods in the shared pool) is a verdict with its reasons,
            // not a count to compare: the clients' responses then complete late, some after the window
            assertThat(status.result.verdict).as("%s", status.result.reasons).isEqualTo(Verdict.Invalid);
            assertThat(status.result.reasons).isNotEmpty();
        }
        assertThat(server.otherSeries).extracting(s -> s.name).containsExactly("residence");
        assertThat(server.otherSeries.getFirst().p99Micros).isGreaterThanOrEqualTo(server.p99Micros);
        assertThat(status.pods.getFirst().measuredBy).isEqualTo("probe");

        Pod probe = client.pods().inNamespace(PROBE_NAMESPACE).withLabel("pacer.dev/run", "probed").list().getItems().getFirst();
        Pod serverPod = client.pods().inNamespace(NAMESPACE).withName("probed-server").get();
        assertThat(probe.getSpec().getNodeName()).isEqualTo(serverPod.getSpec().getNodeName());
        var security = probe.getSpec().getContainers().getFirst().getSecurityContext();
        assertThat(security.getCapabilities().getAdd()).containsExactly("BPF", "PERFMON");
        assertThat(security.getAllowPrivilegeEscalation()).isFalse();
        assertThat(security.getReadOnlyRootFilesystem()).isTrue();
        assertThat(serverPod.getSpec().getContainers().getFirst().getSecurityContext().getRunAsNonRoot()).isTrue();

        client.resources(BenchmarkRun.class).inNamespace(NAMESPACE).withName("probed").delete();
        client.pods().inNamespace(PROBE_NAMESPACE).withLabel("pacer.dev/run", "probed").delete();
    }

    /**
     * Each peer server image (pacer's Netty, Vert.x and Helidon images, and the Go one: a static binary without an
     * agent) answers the shoot-out's {@code GET /} on the cluster and is measured by the kernel probe.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "vertx", "helidon", "gohttp"})
    @Order(5)
    void eachPeerImageIsMeasuredByTheKernelProbe(String peer) throws Exception {
        String name = "peer-" + peer;
        BenchmarkRun run = clusterQuickstart(name);
        run.getSpec().server.image = "pacer/server-" + peer + ":0.1.0";
        run.getSpec().server.args = new ArrayList<>();
        run.getSpec().server.labels = new LinkedHashMap<>(Map.of("server", peer));
        run.getSpec().server.measure = "probe";
        run.getSpec().request.path = "/";
        run.getSpec().warmup = "3s";
        run.getSpec().duration = "6s";
        client.resource(run).create();
        measuredByTheProbe(name, 6);
    }

    /**
     * examples/probe/nginx-cluster.yaml as a user applies it, its ConfigMap too, but for the image: the node cannot pull
     * nginx's upstream unprivileged image, so it runs a stand-in of the same layout built from Debian's nginx
     * (test/cluster/images.sh). nginx writes only /tmp under the read-only root, reads its server block from the
     * mounted ConfigMap (the stand-in's own default.conf answers 404: a run that missed it counts errors), and the
     * probe times it.
     */
    @Test
    @Order(5)
    void nginxFromItsUnprivilegedImageWithItsServerBlockFromAConfigMapIsMeasuredByTheKernelProbe() throws Exception {
        Path example = Processes.HOME.resolve("examples/probe/nginx-cluster.yaml");
        List<HasMetadata> documents;
        try (var in = Files.newInputStream(example)) {
            documents = client.load(in).items();
        }
        var configMap = documents.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast).findFirst().orElseThrow();
        configMap.getMetadata().setNamespace(NAMESPACE);
        client.resource(configMap).serverSideApply();
        BenchmarkRun run = BenchmarkRunYaml.read(example);
        run.getMetadata().setNamespace(NAMESPACE);
        run.getSpec().server.image = "localhost/pacer/nginx-unprivileged:test";
        run.getSpec().warmup = "3s";
        run.getSpec().duration = "6s";
        client.resource(run).create();
        String name = run.getMetadata().getName();
        BenchmarkRunStatus status = measuredByTheProbe(name, 6);
        assertThat(status.result.clients.errors).as("every answer the ConfigMap's 200, none the image's 404").isZero();
    }

    /** The run carried out, its server timed by the kernel probe in every period, as many requests as the clients counted. */
    /**
     * The cluster quickstart over https with a certificate the operator makes for the run: the Jetty 12 image's agent
     * counts the requests the clients sent, and both sides count the same handshakes. Over h2, resumption off and
     * connections kept: one handshake per connection. Over HTTP/1.1, connections renewed after 50 responses with
     * resumption: more handshakes, the same on both sides. The Secret is the run's; the clients checked the certificate
     * against the run's Service name while connecting to the pod.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"h2, 0, false", "http/1.1, 50, true"})
    @Order(5)
    void anHttpsRunWithACertificateMadeForItShakesHandsAlikeOnBothSides(String version, int requestsPerConnection, boolean resumption)
            throws Exception {
        String name = "https-" + version.replaceAll("[^a-z0-9]", "");
        BenchmarkRun run = clusterQuickstart(name);
        run.getSpec().request.scheme = "https";
        run.getSpec().clients.httpVersion = version;
        run.getSpec().tls = new RunTemplate.Tls();
        run.getSpec().tls.sessionResumption = resumption;
        run.getSpec().tls.requestsPerConnection = requestsPerConnection;
        run.getSpec().warmup = "3s";
        run.getSpec().duration = "6s";
        client.resource(run).create();
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            BenchmarkRunStatus status = status(name);
            return status != null && status.phase != null && status.phase.isFinal();
        });
        BenchmarkRunStatus status = status(name);
        assertThat(status.phase).as("conditions: %s", status.conditions).isEqualTo(Phase.Succeeded);
        RunResult result = status.result;
        assertThat(result.clients.errors).isZero();
        assertThat(result.server.requests).isCloseTo(result.clients.requests, Percentage.withPercentage(2));
        long connections = (long) run.getSpec().clients.count * run.getSpec().clients.connections;
        if (requestsPerConnection == 0) {
            assertThat(result.tls.clientHandshakes).isEqualTo(connections);
        } else {   // at least one new connection per 50 of the window's responses, beyond the first
            assertThat(result.tls.clientHandshakes).isGreaterThan(connections + result.clients.requests / requestsPerConnection / 2);
        }
        assertThat(result.tls.serverHandshakes).isEqualTo(result.tls.clientHandshakes);
        String uid = client.resources(BenchmarkRun.class).inNamespace(NAMESPACE).withName(name).get().getMetadata().getUid();
        Secret secret = client.secrets().inNamespace(NAMESPACE).withName(name + "-tls-" + uid.substring(0, 8)).get();
        assertThat(secret).as("the run's own Secret, named after it and its uid").isNotNull();
        assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
        assertThat(secret.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getName()).isEqualTo(name));
    }

    static BenchmarkRunStatus measuredByTheProbe(String name, int periods) {
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            BenchmarkRunStatus status = status(name);
            return status != null && status.phase != null && status.phase.isFinal();
        });
        BenchmarkRunStatus status = status(name);
        assertThat(status.phase).as("conditions: %s", status.conditions).isEqualTo(Phase.Succeeded);
        RunResult.ServerFigures server = status.result.server;
        assertThat(server.measuredBy).isEqualTo("probe");
        assertThat(server.samples).isEqualTo(periods);
        assertThat(server.requests).as("requests the probe timed").isPositive();
        assertThat(server.p50Micros).isPositive();
        if (status.result.verdict == Verdict.Passed) {
            assertThat(server.requests).isCloseTo(status.result.clients.requests, Percentage.withPercentage(2));
        } else {
            assertThat(status.result.verdict).as("%s", status.result.reasons).isEqualTo(Verdict.Invalid);
        }
        return status;
    }

    /** Two servers twice each: one run at a time, aggregated, and an operator restart mid-suite loses nothing. */
    @Test
    @Order(6)
    void aSuiteRunsOneRunAtATimeAggregatesAndSurvivesARestart() throws Exception {
        BenchmarkRun shape = clusterQuickstart("shape");
        shape.getSpec().warmup = "3s";
        shape.getSpec().duration = "6s";
        shape.getSpec().server = null;   // the template is a run without its server
        // cleanup OnSuccess (the quickstart's): a run judged Invalid on a busy machine frees the node's one exclusive CPU too
        BenchmarkSuite suite = new BenchmarkSuite();
        suite.getMetadata().setName("pair");
        suite.getMetadata().setNamespace(NAMESPACE);
        suite.setSpec(new BenchmarkSuiteSpec());
        suite.getSpec().template = Serialization.jsonMapper()
                .convertValue(shape.getSpec(), RunTemplate.class);
        suite.getSpec().servers = List.of(server("jetty12", "pacer/server-jetty12:0.1.0", "--mode=core"),
                server("loom", "pacer/server-loom:0.1.0", null));
        suite.getSpec().repetitions = 2;
        var suites = client.resources(BenchmarkSuite.class).inNamespace(NAMESPACE);
        suites.resource(suite).create();
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofSeconds(1)).until(() -> {
            var status = suites.withName("pair").get().getStatus();
            return status != null && status.runsDone != null && status.runsDone >= 1 && status.currentRun != null;
        });
        operator.close();
        Thread.sleep(3000);   // the run under way goes on without an operator
        operator = startOperator();
        await().atMost(Duration.ofMinutes(8)).pollInterval(Duration.ofSeconds(2))
                .until(() -> "Succeeded".equals(suites.withName("pair").get().getStatus().phase));
        var status = suites.withName("pair").get().getStatus();
        assertThat(status.runs).extracting(r -> r.name).containsExactly("pair-jetty12-200-1", "pair-loom-200-1", "pair-jetty12-200-2", "pair-loom-200-2");
        assertThat(status.runs).allSatisfy(r -> assertThat(r.phase).as(r.name + ": " + r.reason).isEqualTo("Succeeded"));
        assertThat(status.servers).extracting(x -> x.name).containsExactly("jetty12", "loom");
        assertThat(status.servers).allSatisfy(x -> {
            assertThat(x.repetitions).isEqualTo(2);
            assertThat(x.p99IntegralMedianMicros).isPositive();
            assertThat(x.p99IntegralLowMicros).isLessThanOrEqualTo(x.p99IntegralMedianMicros);
            assertThat(x.p99IntegralHighMicros).isGreaterThanOrEqualTo(x.p99IntegralMedianMicros);
        });
        assertThat(status.comparisons).singleElement().asString().startsWith("at 200 req/s per client: loom is");
        long previousEnd = 0;
        for (var line : status.runs) {
            BenchmarkRunStatus run = status(line.name);
            assertThat(run.startAtEpochMs).as("%s starts after the previous run's window", line.name).isGreaterThan(previousEnd);
            previousEnd = run.window.endEpochMs;
        }
        suites.withName("pair").delete();
        await().atMost(Duration.ofMinutes(1)).until(() -> client.resources(BenchmarkRun.class).inNamespace(NAMESPACE)
                .withLabel("pacer.dev/suite", "pair").list().getItems().isEmpty());
    }

    /** Two runs applied at once: the operator runs one at a time, the younger Queued until the older is done. */
    @Test
    @Order(7)
    void twoRunsAppliedAtOnceRunOneAfterTheOther() throws Exception {
        BenchmarkRun first = clusterQuickstart("first");
        BenchmarkRun second = clusterQuickstart("second");
        for (BenchmarkRun run : List.of(first, second)) {
            run.getSpec().warmup = "2s";
            run.getSpec().duration = "4s";
        }
        client.resource(first).create();
        client.resource(second).create();
        boolean[] queued = {false};
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofMillis(500)).until(() -> {
            BenchmarkRunStatus s = status("second");
            queued[0] |= s != null && s.phase == Phase.Queued && s.conditions.stream().anyMatch(c ->
                    "Queued".equals(c.getReason()) && c.getMessage().contains(NAMESPACE + "/first"));
            BenchmarkRunStatus f = status("first");
            return f != null && f.phase != null && f.phase.isFinal() && s != null && s.phase != null && s.phase.isFinal();
        });
        assertThat(queued[0]).as("second was seen Queued behind first").isTrue();
        BenchmarkRunStatus f = status("first");
        BenchmarkRunStatus s = status("second");
        assertThat(f.phase).isEqualTo(Phase.Succeeded);
        assertThat(s.phase).isEqualTo(Phase.Succeeded);
        assertThat(s.startAtEpochMs).as("second starts after first's window").isGreaterThan(f.window.endEpochMs);
    }

    private static BenchmarkSuiteSpec.SuiteServer server(String name, String image, String arg) {
        var server = new BenchmarkSuiteSpec.SuiteServer();
        server.name = name;
        server.image = image;
        server.args = arg == null ? new ArrayList<>() : new ArrayList<>(List.of(arg));
        server.cpus = "1";
        server.memory = "512Mi";
        server.labels = new LinkedHashMap<>(Map.of("server", name));
        return server;
    }

    static BenchmarkRun clusterQuickstart(String name) throws IOException {
        return ClusterRuns.quickstart(NAMESPACE, name);
    }

    static BenchmarkRunStatus status(String name) {
        return ClusterRuns.status(client, NAMESPACE, name);
    }

    static Condition condition(BenchmarkRunStatus status, String type) {
        return status == null ? null : status.conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    }

    static List<Event> events(String run) {
        return client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                .filter(e -> run.equals(e.getInvolvedObject().getName()) && "BenchmarkRun".equals(e.getInvolvedObject().getKind())).toList();
    }

    static String kubectl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig=" + kubeconfig));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("kubectl %s: %s", String.join(" ", args), output).isZero();
        return output;
    }

    static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
