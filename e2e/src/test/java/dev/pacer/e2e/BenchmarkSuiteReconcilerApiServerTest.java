package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.api.Phase;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.engine.suite.SuitePlan;
import dev.pacer.operator.suite.BenchmarkSuiteReconciler;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link BenchmarkSuiteReconciler} alone, one reconcile at a time, on a real kube-apiserver: the test finishes each
 * run by writing its status as the run reconciler would, so the suite's own decisions show. It creates one run at a time,
 * in the documented order (repetition after repetition, every server in the listed order), owned by the suite; it
 * goes on when a run ends, whether it succeeded or failed; it sums the runs up from their statuses; and, holding no
 * state of its own, a new reconciler picks the suite up where the last one left it.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class BenchmarkSuiteReconcilerApiServerTest {
    static KubernetesClient client;
    private static final Instant T0 = Instant.parse("2026-11-26T02:00:00Z");

    @BeforeAll
    static void applyCrds() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
    }

    private static BenchmarkSuite fetchSuite(String name) {
        return client.resources(BenchmarkSuite.class).inNamespace("default").withName(name).get();
    }

    private static BenchmarkSuite reconcile(BenchmarkSuite suite) {
        // a new reconciler each time: the suite's state is in the cluster, not in the reconciler
        UpdateControl<BenchmarkSuite> control = new BenchmarkSuiteReconciler(new SteppedClock(T0)).reconcile(suite, new ApiServerContext<>(client, suite));
        if (control.isPatchStatus()) {
            BenchmarkSuite current = fetchSuite(suite.getMetadata().getName());
            current.setStatus(control.getResource().orElseThrow().getStatus());
            client.resources(BenchmarkSuite.class).resource(current).updateStatus();
        }
        return fetchSuite(suite.getMetadata().getName());
    }

    private static List<BenchmarkRun> runsOf(BenchmarkSuite suite) {
        return client.resources(BenchmarkRun.class).inNamespace("default").withLabel(SuitePlan.LABEL_SUITE, suite.getMetadata().getName())
                .list().getItems();
    }

    /** Ends a run as the run reconciler would: Succeeded with a result, or Failed with a reason. */
    private static void finish(BenchmarkRun run, Long p99IntegralMicros) {
        BenchmarkRunStatus status = new BenchmarkRunStatus();
        if (p99IntegralMicros == null) {
            status.phase = Phase.Failed;
            status.conditions.add(new ConditionBuilder().withType(RunConditions.FAILED).withStatus("True").withReason("ServerFailed")
                    .withMessage("server pod " + run.getMetadata().getName() + "-server: OOMKilled").withLastTransitionTime(T0.toString()).build());
        } else {
            status.phase = Phase.Succeeded;
            RunResult result = new RunResult();
            result.verdict = Verdict.Passed;
            result.server = new RunResult.ServerFigures();
            result.server.histogramsAvailable = true;
            result.server.p99IntegralMicros = p99IntegralMicros;
            result.server.maxIntegralMicros = 3 * p99IntegralMicros;
            result.clients = new RunResult.ClientFigures();
            result.clients.p99Micros = 2_000L;
            result.clients.errors = 0L;
            result.clients.offeredRate = 1000.0;
            result.clients.achievedRate = 1000.0;
            status.result = result;
        }
        run.setStatus(status);
        client.resources(BenchmarkRun.class).resource(run).updateStatus();
    }

    @Test
    void aSuiteRunsOneRunAtATimeInItsOrderAndSumsThemUp() throws Exception {
        BenchmarkSuite spec = BenchmarkRunYaml.readSuite(Processes.HOME.resolve("examples/suites/local-two-servers.yaml"));
        spec.getMetadata().setNamespace("default");
        client.resources(BenchmarkSuite.class).resource(spec).create();
        BenchmarkSuite suite = fetchSuite("local-two-servers");
        // the example: jetty12-core and loom, twice each, at 1k
        List<String> order = List.of("local-two-servers-jetty12-core-1k-1", "local-two-servers-loom-1k-1",
                "local-two-servers-jetty12-core-1k-2", "local-two-servers-loom-1k-2");
        Map<String, Long> integrals = Map.of(order.get(0), 1_000L, order.get(1), 1_500L, order.get(3), 1_700L);   // the third fails

        List<String> created = new ArrayList<>();
        for (String expected : order) {
            suite = reconcile(suite);
            List<BenchmarkRun> runs = runsOf(suite);
            assertThat(runs).as("one run more, and only one").hasSize(created.size() + 1);
            BenchmarkRun next = runs.stream().filter(r -> !created.contains(r.getMetadata().getName())).findFirst().orElseThrow();
            assertThat(next.getMetadata().getName()).isEqualTo(expected);
            assertThat(next.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
                assertThat(o.getUid()).isEqualTo(fetchSuite("local-two-servers").getMetadata().getUid());
                assertThat(o.getController()).isTrue();
            });
            assertThat(suite.getStatus().phase).isEqualTo("Running");
            assertThat(suite.getStatus().currentRun).isEqualTo(expected);
            assertThat(suite.getStatus().runsDone).isEqualTo(created.size());

            suite = reconcile(suite);
            assertThat(runsOf(suite)).as("no other run while %s is under way", expected).hasSize(created.size() + 1);
            created.add(expected);
            finish(next, integrals.get(expected));
        }

        suite = reconcile(suite);
        BenchmarkSuiteStatus done = suite.getStatus();
        assertThat(done.phase).isEqualTo("Succeeded");
        assertThat(done.runsDone).isEqualTo(4);
        assertThat(done.currentRun).isNull();
        assertThat(runsOf(suite)).hasSize(4);
        assertThat(done.runs).extracting(r -> r.name).containsExactlyElementsOf(order);
        assertThat(done.runs).extracting(r -> r.p99IntegralMicros).containsExactly(1_000L, 1_500L, null, 1_700L);
        assertThat(done.runs.get(2).phase).isEqualTo("Failed");
        assertThat(done.runs.get(2).reason).contains("ServerFailed").contains("OOMKilled");
        assertThat(done.conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(RunConditions.COMPLETE);
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getMessage()).startsWith("4 runs");
        });
        assertThat(reconcile(suite).getStatus().conditions).as("a finished suite is left as it is").isEqualTo(done.conditions);
    }

    @Test
    void aSuiteItsServersMakeInvalidFailsNamingTheField() throws Exception {
        BenchmarkSuite spec = BenchmarkRunYaml.readSuite(Processes.HOME.resolve("examples/suites/local-two-servers.yaml"));
        spec.getMetadata().setName("bad-selector");
        spec.getMetadata().setNamespace("default");
        spec.getSpec().template.placement.server.nodeSelector = Map.of("bad key!", "x");   // admission cannot judge a map's keys
        client.resources(BenchmarkSuite.class).resource(spec).create();
        BenchmarkSuite suite = reconcile(fetchSuite("bad-selector"));
        assertThat(suite.getStatus().phase).isEqualTo("Failed");
        assertThat(suite.getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(RunConditions.FAILED);
            assertThat(c.getReason()).isEqualTo("InvalidSpec");
            assertThat(c.getMessage()).contains("nodeSelector");
        });
        assertThat(runsOf(suite)).as("no run of an invalid suite").isEmpty();
    }
}
