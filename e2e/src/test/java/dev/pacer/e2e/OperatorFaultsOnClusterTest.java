package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.protocol.RunProtocol;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.operator.OperatorSettings;
import dev.pacer.operator.pods.PodFactory;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Faults on the test cluster, with the operator as its own process, as it runs in its pod: SIGKILLed in each phase
 * of a run, two replicas of which the acting one is killed, the API server restarted mid-run, a client the kernel
 * kills for its memory, and a client's agent unreachable for a while and for good. Each run is the cluster quickstart (5 s warm-up, 15 s measured).
 */
@Tag("cluster")
class OperatorFaultsOnClusterTest {
    static final String NAMESPACE = "pacer-faults";
    /** The operator's own namespace: its Lease. */
    static final String OPERATOR_NAMESPACE = "pacer-faults-operator";
    static final Duration RUN_LIMIT = Duration.ofMinutes(4);
    static Path kubeconfig;
    /** The artifact store every operator process of this class shares, as replicas share a volume. */
    static final Path ARTIFACTS = createArtifactStore();

    static Path createArtifactStore() {
        try {
            return Files.createTempDirectory("pacer-faults-artifacts");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
    static KubernetesClient client;
    final List<OperatorProcess> operators = new ArrayList<>();

    /** {@code java -cp operator/target/app/lib/* PacerOperator}, configured by its environment as the chart does. */
    record OperatorProcess(String identity, Process process, Path log) {
        static OperatorProcess start(String identity, boolean leaderElection) throws IOException {
            Path log = Files.createTempFile("pacer-operator-" + identity, ".log");
            ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-cp", Processes.HOME.resolve("operator/target/app/lib") + "/*", "dev.pacer.operator.PacerOperator")
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = builder.environment();
            env.put("KUBECONFIG", kubeconfig.toString());
            env.put("PACER_AGENT_ACCESS", "apiServerProxy");
            env.put("PACER_WATCH_NAMESPACES", NAMESPACE);
            env.put("PACER_METRICS_PORT", "0");
            env.put("PACER_PROBE_NAMESPACE", OPERATOR_NAMESPACE);
            env.put("PACER_LEADER_ELECTION", Boolean.toString(leaderElection));
            env.put("POD_NAMESPACE", OPERATOR_NAMESPACE);
            env.put("POD_NAME", identity);
            env.put("PACER_ARTIFACTS_DIR", ARTIFACTS.toString());
            return new OperatorProcess(identity, builder.start(), log);
        }

        /** SIGKILL: no shutdown hook, no last status patch, the Lease left to expire. */
        void kill() throws InterruptedException {
            process.destroyForcibly().waitFor();
        }

        String output() throws IOException {
            return Files.readString(log);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        kubeconfig = Path.of(System.getProperty("pacer.kubeconfig", System.getProperty("user.home") + "/.cache/pacer/k8s/cluster/admin-host.kubeconfig"));
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
        ApiServerFixtures.applyCommittedCrd(client);
        await().atMost(Duration.ofMinutes(2)).until(() -> {
            var existing = client.namespaces().withName(NAMESPACE).get();
            return existing == null || existing.getMetadata().getDeletionTimestamp() == null;
        });
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE)
                .addToLabels("pod-security.kubernetes.io/enforce", "restricted").endMetadata().build()).serverSideApply();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(OPERATOR_NAMESPACE).endMetadata().build())
                .serverSideApply();
    }

    @AfterEach
    void stopOperatorsAndDeleteRuns() throws Exception {
        for (OperatorProcess operator : operators) {
            operator.kill();
        }
        client.resources(BenchmarkRun.class).inNamespace(NAMESPACE).delete();
        client.resources(Lease.class).inNamespace(OPERATOR_NAMESPACE).delete();
        // the next run's server needs the node's one exclusive CPU
        await().atMost(Duration.ofMinutes(1)).until(() -> client.pods().inNamespace(NAMESPACE).list().getItems().isEmpty());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.namespaces().withName(NAMESPACE).delete();
            client.namespaces().withName(OPERATOR_NAMESPACE).delete();
            client.close();
        }
    }

    OperatorProcess operator(String identity, boolean leaderElection) throws IOException {
        OperatorProcess operator = OperatorProcess.start(identity, leaderElection);
        operators.add(operator);
        return operator;
    }

    static BenchmarkRun quickstart(String name) throws IOException {
        return ClusterRuns.quickstart(NAMESPACE, name);
    }

    static BenchmarkRunStatus status(String name) {
        return ClusterRuns.status(client, NAMESPACE, name);
    }

    /** Succeeded with every period measured, as an undisturbed run. */
    static void assertWhole(String name, Long startAtBefore) {
        await().atMost(RUN_LIMIT).until(() -> status(name) != null && status(name).phase != null && status(name).phase.isFinal());
        BenchmarkRunStatus status = status(name);
        assertThat(status.phase).as("conditions: %s", status.conditions).isEqualTo(Phase.Succeeded);
        assertThat(status.result.server.samples).isEqualTo(15);
        assertThat(status.result.server.p99IntegralMicros).isPositive();
        assertThat(status.result.clients.requests).isPositive();
        if (startAtBefore != null) {
            assertThat(status.startAtEpochMs).as("the barrier posted before the fault, kept").isEqualTo(startAtBefore);
        }
        // the results directory, kept by whichever process finished the run, holds what the status says
        assertThat(status.artifacts).as("status.artifacts").isNotNull();
        assertThat(status.artifacts.error).isNull();
        Path kept = ARTIFACTS.resolve(status.artifacts.path);
        assertThat(status.artifacts.path).startsWith(NAMESPACE + "/" + name + "/");
        assertThat(kept.resolve("server.hlog")).isNotEmptyFile();
        assertThat(kept.resolve("report.html")).isNotEmptyFile();
        try (var files = Files.list(kept)) {
            assertThat(files.count()).isEqualTo(status.artifacts.files.longValue());
            assertThat(ResultDocument.read(kept).result().server.p99IntegralMicros)
                    .isEqualTo(status.result.server.p99IntegralMicros);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * SIGKILL in each phase, a new process 3 s later: the run ends as if nothing happened. "AfterTheWindow" is the
     * moment of collection: the window is over and the status still says Measuring, as a kill during the collection's
     * requests leaves it (collecting and judging are one step, stored only with its result).
     */
    @ParameterizedTest(name = "killed in {0}")
    @ValueSource(strings = {"Starting", "WarmingUp", "Measuring", "AfterTheWindow"})
    void anOperatorKilledInEachPhaseResumesTheRun(String when) throws Exception {
        String name = "killed-" + when.toLowerCase(Locale.ROOT);
        OperatorProcess first = operator("first-" + name, false);
        client.resource(quickstart(name)).create();
        await().atMost(RUN_LIMIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            BenchmarkRunStatus s = status(name);
            if (s == null || s.phase == null) {
                return false;
            }
            assertThat(s.phase).as("conditions: %s", s.conditions).isNotEqualTo(Phase.Failed);
            return switch (when) {
                case "AfterTheWindow" -> s.window != null && s.window.endEpochMs != null && System.currentTimeMillis() >= s.window.endEpochMs;
                default -> s.phase.name().equals(when);
            };
        });
        BenchmarkRunStatus atKill = status(name);
        first.kill();
        assertThat(atKill.phase).as("killed in").isEqualTo("AfterTheWindow".equals(when) ? Phase.Measuring : Phase.valueOf(when));
        Thread.sleep(3_000);
        OperatorProcess second = operator("second-" + name, false);
        assertWhole(name, atKill.startAtEpochMs);
        assertThat(second.process().isAlive()).as("the new operator runs on:\n%s", second.output()).isTrue();
    }

    /** Two replicas: only the Lease's holder acts; killed mid-run, the other takes the Lease and finishes the run. */
    @Test
    void twoReplicasElectOneAndTheOtherTakesOverWhenItIsKilled() throws Exception {
        OperatorProcess a = operator("replica-a", true);
        await().atMost(Duration.ofMinutes(1)).until(() -> "replica-a".equals(holder()));
        OperatorProcess b = operator("replica-b", true);
        client.resource(quickstart("two-replicas")).create();
        await().atMost(RUN_LIMIT).until(() -> status("two-replicas") != null && status("two-replicas").phase == Phase.Measuring);
        assertThat(holder()).isEqualTo("replica-a");
        Long startAt = status("two-replicas").startAtEpochMs;
        a.kill();
        assertWhole("two-replicas", startAt);
        assertThat(holder()).as("the Lease's holder after the kill").isEqualTo("replica-b");
        assertThat(b.process().isAlive()).isTrue();
        assertThat(b.output()).contains("acting while it holds the Lease " + OPERATOR_NAMESPACE + "/" + OperatorSettings.LeaderElection.LEASE_NAME);
    }

    @Test
    void theApiServerRestartedMidRunLosesNothing() throws Exception {
        operator("alone", false);
        client.resource(quickstart("api-restart")).create();
        await().atMost(RUN_LIMIT).until(() -> status("api-restart") != null && status("api-restart").phase == Phase.Measuring);
        Long startAt = status("api-restart").startAtEpochMs;
        Process restart = new ProcessBuilder(Processes.HOME.resolve("test/cluster/restart-apiserver.sh").toString(), "5")
                .redirectErrorStream(true).start();
        String output = new String(restart.getInputStream().readAllBytes());
        assertThat(restart.waitFor()).as(output).isZero();
        assertWhole("api-restart", startAt);
    }

    /**
     * A client whose JVM needs more than its memory limit is killed by the kernel: the run fails, saying so. Its pods
     * are kept for their logs (OnSuccess) and stopped: the next run gets the node's one exclusive CPU and is carried out.
     */
    @Test
    void aClientKilledForItsMemoryFailsTheRunNamingItAndItsKeptPodsLeaveTheNextRunTheCpu() throws Exception {
        operator("alone", false);
        BenchmarkRun run = quickstart("oom-client");
        run.getSpec().clients.memory = "96Mi";
        run.getSpec().clients.jvmOptions = new ArrayList<>(List.of("-Xms256m", "-XX:+AlwaysPreTouch"));
        client.resource(run).create();
        await().atMost(RUN_LIMIT).until(() -> status("oom-client") != null && status("oom-client").phase != null
                && status("oom-client").phase.isFinal());
        BenchmarkRunStatus status = status("oom-client");
        assertThat(status.phase).isEqualTo(Phase.Failed);
        var failed = status.conditions.stream().filter(c -> RunConditions.FAILED.equals(c.getType())).findFirst().orElseThrow();
        assertThat(failed.getMessage()).contains("client-").contains("OOMKilled");

        // kept, stopped: every pod of the run still there, none running, the server's log readable
        await().atMost(Duration.ofSeconds(60)).until(() -> Boolean.TRUE.equals(status("oom-client").podsStopped)
                && keptPods("oom-client").stream().allMatch(p -> "Failed".equals(p.getStatus().getPhase())
                        || "Succeeded".equals(p.getStatus().getPhase())));
        var kept = keptPods("oom-client");
        assertThat(kept).as("server and both clients kept").hasSize(3);
        var server = kept.stream().filter(p -> PodFactory.ROLE_SERVER.equals(p.getMetadata().getLabels().get(PodFactory.LABEL_ROLE)))
                .findFirst().orElseThrow();
        assertThat(server.getStatus().getReason()).isEqualTo("DeadlineExceeded");
        assertThat(client.pods().inNamespace(NAMESPACE).withName(server.getMetadata().getName()).getLog()).as("the server's log").isNotBlank();
        assertThat(client.v1().events().inNamespace(NAMESPACE).list().getItems()).as("an event says so")
                .anyMatch(e -> "PodsStopped".equals(e.getReason()) && "oom-client".equals(e.getInvolvedObject().getName()));

        client.resource(quickstart("after-oom")).create();
        await().atMost(RUN_LIMIT).until(() -> status("after-oom") != null && status("after-oom").phase != null
                && status("after-oom").phase.isFinal());
        assertThat(status("after-oom").phase).as("conditions: %s", status("after-oom").conditions).isEqualTo(Phase.Succeeded);
    }

    static List<Pod> keptPods(String run) {
        return client.pods().inNamespace(NAMESPACE).withLabel(PodFactory.LABEL_RUN, run).list().getItems();
    }

    /** A client's agent silent for 12 s mid-window: a condition and a warning, then the run as if nothing happened. */
    @Test
    void anAgentUnreachableForAWhileLeavesTheRunWhole() throws Exception {
        operator("alone", false);
        client.resource(quickstart("agent-silent")).create();
        await().atMost(RUN_LIMIT).until(() -> status("agent-silent") != null && status("agent-silent").phase == Phase.Measuring);
        BenchmarkRunStatus measuring = status("agent-silent");
        BenchmarkRunStatus.PodStatus pod = clientPod(measuring, "client-0");
        try (AgentCut cut = AgentCut.of(pod)) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
                    RunConditions.is(status("agent-silent").conditions, RunConditions.AGENTS_REACHABLE, RunConditions.FALSE));
            var silent = RunConditions.find(status("agent-silent").conditions, RunConditions.AGENTS_REACHABLE);
            assertThat(silent.getReason()).isEqualTo("AgentUnreachable");
            assertThat(silent.getMessage()).contains("client-0").contains(pod.name);
            assertThat(status("agent-silent").phase).isIn(Phase.Measuring, Phase.Collecting);
            Thread.sleep(Math.max(0, 12_000 - cut.elapsedMs()));
        }
        assertWhole("agent-silent", measuring.startAtEpochMs);
        assertThat(RunConditions.find(status("agent-silent").conditions, RunConditions.AGENTS_REACHABLE).getStatus())
                .as("answering again").isEqualTo(RunConditions.TRUE);
        assertThat(client.v1().events().inNamespace(NAMESPACE).list().getItems()).as("a warning event")
                .anyMatch(e -> "AgentUnreachable".equals(e.getReason()) && e.getMessage().contains("client-0"));
    }

    /** A client's agent silent for good: the run fails once it needs the agent, naming it, and cleans up. */
    @Test
    void anAgentUnreachableForGoodFailsTheRunNamingIt() throws Exception {
        operator("alone", false);
        client.resource(quickstart("agent-gone")).create();
        await().atMost(RUN_LIMIT).until(() -> status("agent-gone") != null && status("agent-gone").phase == Phase.Measuring);
        BenchmarkRunStatus.PodStatus pod = clientPod(status("agent-gone"), "client-1");
        try (AgentCut ignored = AgentCut.of(pod)) {
            await().atMost(RUN_LIMIT).until(() -> status("agent-gone").phase.isFinal());
        }
        BenchmarkRunStatus status = status("agent-gone");
        assertThat(status.phase).as("conditions: %s", status.conditions).isEqualTo(Phase.Failed);
        var failed = RunConditions.find(status.conditions, RunConditions.FAILED);
        assertThat(failed.getReason()).isEqualTo("AgentUnreachable");
        assertThat(failed.getMessage()).contains("client-1").contains(pod.name).contains("no answer for");
        long failedAfterWindowMs = Instant.parse(status.completionTime).toEpochMilli() - status.window.endEpochMs;
        assertThat(failedAfterWindowMs).as("silence tolerated for the limit once the window is over")
                .isGreaterThanOrEqualTo(RunProtocol.AGENT_UNREACHABLE_LIMIT.toMillis());
    }

    static BenchmarkRunStatus.PodStatus clientPod(BenchmarkRunStatus status, String role) {
        return status.pods.stream().filter(p -> role.equals(p.role)).findFirst().orElseThrow();
    }

    /** A pod's agent port dropped from the cluster's network namespace ({@code test/cluster/drop-traffic.sh}) until closed. */
    record AgentCut(String podIP, long sinceMs) implements AutoCloseable {
        static AgentCut of(BenchmarkRunStatus.PodStatus pod) throws IOException, InterruptedException {
            assertThat(pod.podIP).as("pod %s's IP", pod.name).isNotBlank();
            dropTraffic("on", pod.podIP);
            return new AgentCut(pod.podIP, System.currentTimeMillis());
        }

        long elapsedMs() {
            return System.currentTimeMillis() - sinceMs;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            dropTraffic("off", podIP);
        }

        static void dropTraffic(String onOff, String ip) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(Processes.HOME.resolve("test/cluster/drop-traffic.sh").toString(), onOff, ip,
                    Integer.toString(PodFactory.ADMIN_PORT)).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as("drop-traffic.sh %s %s: %s", onOff, ip, output).isZero();
        }
    }

    static String holder() {
        Lease lease = client.resources(Lease.class).inNamespace(OPERATOR_NAMESPACE).withName(OperatorSettings.LeaderElection.LEASE_NAME).get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }
}
