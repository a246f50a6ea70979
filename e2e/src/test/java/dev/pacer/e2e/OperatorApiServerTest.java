package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.Phase;
import dev.pacer.engine.protocol.RunConditions;
import dev.pacer.operator.BenchmarkRunReconciler;
import dev.pacer.operator.suite.BenchmarkSuiteReconciler;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.Operator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator's first steps against a real kube-apiserver (no kubelet: pods are created, never run): admission with
 * the CLI's rules, the server pod as PodFactory describes it, a deleted pod failing the run with its name, and the bad
 * input of {@link AdmissionAgreesWithPlannerTest}'s corpus that admission cannot refuse: failed by the operator with a
 * condition naming the field, no pod created, the run left alone once failed.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class OperatorApiServerTest {
    static KubernetesClient client;
    static Operator operator;

    @BeforeAll
    static void start() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
        operator = new Operator(overrider -> overrider.withKubernetesClient(client));
        operator.register(new BenchmarkRunReconciler());
        operator.register(new BenchmarkSuiteReconciler());
        operator.start();
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.stop();
        }
    }

    static BenchmarkRun quickstart(String name) throws Exception {
        return ApiServerFixtures.quickstart(name);
    }

    static BenchmarkRun fetch(String name) {
        return client.resources(BenchmarkRun.class).inNamespace("default").withName(name).get();
    }

    @Test
    void validRunGetsItsServerPodAndStarts() throws Exception {
        client.resources(BenchmarkRun.class).resource(quickstart("starts")).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BenchmarkRun run = fetch("starts");
            assertThat(run.getStatus()).isNotNull();
            assertThat(run.getStatus().phase).isEqualTo(Phase.Starting);
        });
        BenchmarkRun run = fetch("starts");
        assertThat(run.getStatus().load).isEqualTo("2x500");
        assertThat(run.getStatus().observedGeneration).isEqualTo(run.getMetadata().getGeneration());
        assertThat(run.getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(RunConditions.SPEC_VALID);
            assertThat(c.getStatus()).isEqualTo("True");
        });
        Pod server = client.pods().inNamespace("default").withName("starts-server").get();
        assertThat(server).isNotNull();
        assertThat(server.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(run.getMetadata().getUid()));
        assertThat(server.getSpec().getContainers().getFirst().getResources().getLimits().get("cpu").toString()).isEqualTo("1");
        assertThat(server.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        // what the API server made of it: the QoS class it computed, and the restricted profile as stored
        assertThat(server.getStatus().getQosClass()).isEqualTo("Guaranteed");
        assertThat(server.getSpec().getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        var container = server.getSpec().getContainers().getFirst().getSecurityContext();
        assertThat(container.getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getAllowPrivilegeEscalation()).isFalse();
        assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(server.getSpec().getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                .singleElement().satisfies(term -> {
                    assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                    assertThat(term.getLabelSelector().getMatchLabels()).containsEntry("pacer.dev/role", "client");
                });
    }

    @Test
    void specTheSchemaCannotJudgeIsRefusedNamingTheField() throws Exception {
        BenchmarkRun run = quickstart("refused");
        run.getSpec().placement.server.nodeSelector = Map.of("bad key!", "x");   // a map's keys: beyond the schema's CEL budget
        client.resources(BenchmarkRun.class).resource(run).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(fetch("refused").getStatus()).isNotNull();
            assertThat(fetch("refused").getStatus().phase).isEqualTo(Phase.Failed);
        });
        assertThat(fetch("refused").getStatus().conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(RunConditions.SPEC_VALID);
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("InvalidSpec");
            assertThat(c.getMessage()).contains("spec.placement.server.nodeSelector").contains("not a label key");
        });
        assertThat(client.pods().inNamespace("default").withName("refused-server").get()).isNull();
    }

    @Test
    void aFinishedRunIsDeletedAfterItsTtl() throws Exception {
        BenchmarkRun run = quickstart("expires");
        run.getSpec().placement.server.nodeSelector = Map.of("bad key!", "x");   // refused by the operator: the run finishes (Failed) at once
        run.getSpec().cleanup.ttlSecondsAfterFinished = 2L;
        client.resources(BenchmarkRun.class).resource(run).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BenchmarkRun seen = fetch("expires");
            assertThat(seen).isNotNull();
            assertThat(seen.getStatus()).isNotNull();
            assertThat(seen.getStatus().phase).isEqualTo(Phase.Failed);
            assertThat(seen.getStatus().completionTime).isNotNull();
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> fetch("expires") == null);
    }

    /**
     * The API server refuses the run's pods for a while, as it does in a namespace made a moment ago whose default
     * service account the controller manager has not made yet (none runs here: an admission policy refuses them, with
     * the same code and words, until the test removes it). The run is retried meanwhile; the refusal must not leave a
     * phase whose pods were never created, which the next reconcile would read as a deleted server.
     */
    @Test
    void aPodRefusedForAWhileIsCreatedOnceItCanBe() throws Exception {
        String namespace = "no-account-yet";
        Runnable allowPods = refusePodsIn(namespace, "refuse-pods-for-a-while");
        BenchmarkRun run = quickstart("waits-for-account");
        run.getMetadata().setNamespace(namespace);
        client.resources(BenchmarkRun.class).inNamespace(namespace).resource(run).create();
        // the operator's retries come at about 2, 5 and 9.5 s: the first two fall in this wait
        await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(12)).untilAsserted(() -> {
            BenchmarkRun seen = client.resources(BenchmarkRun.class).inNamespace(namespace).withName("waits-for-account").get();
            Phase phase = seen.getStatus() == null ? null : seen.getStatus().phase;
            assertThat(phase).as("conditions: %s", seen.getStatus() == null ? null : seen.getStatus().conditions)
                    .isNotIn(Phase.Failed, Phase.Starting);
        });
        allowPods.run();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            BenchmarkRun seen = client.resources(BenchmarkRun.class).inNamespace(namespace).withName("waits-for-account").get();
            assertThat(seen.getStatus().phase).as("conditions: %s", seen.getStatus().conditions).isEqualTo(Phase.Starting);
            assertThat(client.pods().inNamespace(namespace).withName("waits-for-account-server").get()).isNotNull();
        });
    }

    /**
     * Pods refused for longer than the run's timeout (40 s, beyond the ~26 s JOSDK retries by default): the run is
     * retried all along, then fails with reason {@code ReconcileError} naming the refusal; it never has a pod.
     */
    @Test
    void aPodRefusedLongerThanTheTimeoutFailsTheRunNamingTheRefusal() throws Exception {
        String namespace = "never-an-account";
        refusePodsIn(namespace, "refuse-pods-for-good");
        BenchmarkRun run = quickstart("refused-for-good");
        run.getMetadata().setNamespace(namespace);
        run.getSpec().timeout = "40s";
        client.resources(BenchmarkRun.class).inNamespace(namespace).resource(run).create();
        await().atMost(Duration.ofSeconds(100)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            BenchmarkRun seen = client.resources(BenchmarkRun.class).inNamespace(namespace).withName("refused-for-good").get();
            assertThat(seen.getStatus()).isNotNull();
            assertThat(seen.getStatus().phase).as("conditions: %s", seen.getStatus().conditions).isEqualTo(Phase.Failed);
            assertThat(RunConditions.find(seen.getStatus().conditions, RunConditions.READY)).satisfies(ready -> {
                assertThat(ready.getReason()).isEqualTo("ReconcileError");
                assertThat(ready.getMessage()).contains("spec.timeout").contains("serviceaccount \"default\" not found");
            });
        });
        assertThat(client.pods().inNamespace(namespace).list().getItems()).as("pods of a run never admitted")
                .noneMatch(p -> p.getMetadata().getName().startsWith("refused-for-good"));
    }

    /**
     * A new namespace whose pods the API server refuses, by an admission policy, with the code and words of a missing
     * service account; answers how to lift the refusal.
     */
    private static Runnable refusePodsIn(String namespace, String policyName) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace)
                .addToLabels("pacer.test/" + policyName, "true").endMetadata().build()).create();
        var policy = client.resource(Serialization.unmarshal("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicy
                metadata: {name: %s}
                spec:
                  failurePolicy: Fail
                  matchConstraints:
                    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
                  validations:
                  - expression: "false"
                    reason: Forbidden
                    message: 'error looking up service account %s/default: serviceaccount "default" not found'
                """.formatted(policyName, namespace), GenericKubernetesResource.class));
        var binding = client.resource(Serialization.unmarshal("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicyBinding
                metadata: {name: %s}
                spec:
                  policyName: %s
                  validationActions: [Deny]
                  matchResources:
                    namespaceSelector: {matchLabels: {pacer.test/%s: "true"}}
                """.formatted(policyName, policyName, policyName), GenericKubernetesResource.class));
        policy.create();
        binding.create();
        Pod probe = new PodBuilder().withNewMetadata().withName("probe").endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("pause").endContainer().endSpec().build();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(() -> client.pods().inNamespace(namespace).resource(probe).create())
                .as("the precondition: pods are refused").isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("error looking up service account"));
        return () -> {
            binding.delete();
            policy.delete();
        };
    }

    @Test
    void deletedServerPodFailsTheRunNamingIt() throws Exception {
        client.resources(BenchmarkRun.class).resource(quickstart("loses-pod")).create();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace("default").withName("loses-pod-server").get() != null);
        client.pods().inNamespace("default").withName("loses-pod-server").withGracePeriod(0).delete();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            BenchmarkRun run = fetch("loses-pod");
            assertThat(run.getStatus()).isNotNull();
            assertThat(run.getStatus().phase).isEqualTo(Phase.Failed);
            assertThat(run.getStatus().conditions).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo(RunConditions.READY);
                assertThat(c.getReason()).isEqualTo("PodDeleted");
                assertThat(c.getMessage()).contains("loses-pod-server");
            });
        });
    }

    static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> runs() {
        return kind("BenchmarkRun");
    }

    static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> kind(String kind) {
        return client.genericKubernetesResources("pacer.dev/v1alpha1", kind);
    }

    /** "Kind/name" in the default namespace. */
    static GenericKubernetesResource resource(String kindAndName) {
        int slash = kindAndName.indexOf('/');
        return kind(kindAndName.substring(0, slash)).inNamespace("default").withName(kindAndName.substring(slash + 1)).get();
    }

    @Test
    @SuppressWarnings("unchecked")
    void badInputAdmissionCannotRefuseIsFailedByTheOperatorNamingItsField() throws Exception {
        Map<String, String> fieldByName = new LinkedHashMap<>();
        try (Stream<Path> listed = Files.list(AdmissionAgreesWithPlannerTest.CORPUS)) {
            for (Path file : listed.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                String yaml = Files.readString(file);
                if (AdmissionAgreesWithPlannerTest.admissionAccepts(yaml)) {
                    GenericKubernetesResource run = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
                    run.getMetadata().setNamespace("default");
                    kind(run.getKind()).inNamespace("default").resource(run).create();
                    fieldByName.put(run.getKind() + "/" + run.getMetadata().getName(), AdmissionAgreesWithPlannerTest.expectedField(yaml));
                }
            }
        }
        assertThat(fieldByName).as("the corpus's known admission gaps").isNotEmpty();
        for (Map.Entry<String, String> accepted : fieldByName.entrySet()) {
            String kind = accepted.getKey().substring(0, accepted.getKey().indexOf('/'));
            String name = accepted.getKey().substring(kind.length() + 1);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Map<String, Object> status = (Map<String, Object>) kind(kind).inNamespace("default").withName(name).get()
                        .getAdditionalProperties().get("status");
                assertThat(status).as("%s has a status", name).isNotNull();
                assertThat(status.get("phase")).as("%s phase", name).isEqualTo("Failed");
                List<Map<String, Object>> conditions = (List<Map<String, Object>>) status.get("conditions");
                assertThat(conditions).as("%s: a condition names %s", name, accepted.getValue())
                        .anySatisfy(c -> assertThat(String.valueOf(c.get("message"))).contains(accepted.getValue()));
            });
            assertThat(client.pods().inNamespace("default").withLabel("pacer.dev/run", name).list().getItems())
                    .as("%s created no pod", name).isEmpty();
        }
        Map<String, String> versions = new LinkedHashMap<>();
        fieldByName.keySet().forEach(n -> versions.put(n, resource(n).getMetadata().getResourceVersion()));
        Thread.sleep(3_000);    // a quiet interval: a reconcile loop on a failed run would change its resourceVersion
        fieldByName.keySet().forEach(n -> assertThat(resource(n).getMetadata().getResourceVersion())
                .as("%s is left alone once failed", n).isEqualTo(versions.get(n)));
    }
}
