package dev.pacer.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunValidation;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.Golden;
import dev.pacer.engine.plan.OwnImages;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.operator.ProbeSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

/**
 * The desired pods against full expected objects (golden files in src/test/resources/golden). When a change is
 * intended, delete the golden file: the test writes the new one and fails once, for review.
 */
class PodFactoryTest {
    static BenchmarkRun run() throws IOException {
        try (InputStream in = PodFactoryTest.class.getResourceAsStream("/golden/run.yaml")) {
            return BenchmarkRunYaml.read(in, "golden/run.yaml");
        }
    }

    static void assertGolden(Pod pod, String file) throws IOException {
        Golden.assertMatches(Serialization.asYaml(pod), file);
    }

    @Test
    void pacersOwnImagesNamedWithoutARegistryComeFromTheInstallsRegistry() throws IOException {
        BenchmarkRun run = run();
        assertThat(run.getSpec().server.image).startsWith("pacer/server-");
        run.getSpec().clients.image = "pacer/loadgen:0.1.0";
        RunPlan plan = RunPlanner.plan(run, "registry.example.com/perf/loadgen:0.1.0", new OwnImages("registry.example.com/perf"));
        assertThat(PodFactory.serverPod(run, plan).getSpec().getContainers().getFirst().getImage())
                .isEqualTo("registry.example.com/perf/" + run.getSpec().server.image.substring("pacer/".length()));
        assertThat(PodFactory.clientPod(run, plan, plan.clients().getFirst()).getSpec().getContainers().getFirst().getImage())
                .isEqualTo("registry.example.com/perf/loadgen:0.1.0");
    }

    @Test
    void serverPodIsGuaranteedRestrictedAndAwayFromTheClients() throws IOException {
        BenchmarkRun run = run();
        Pod server = PodFactory.serverPod(run, RunPlanner.plan(run));
        assertGolden(server, "server-pod.yaml");
        assertThat(server.getSpec().getContainers().getFirst().getResources().getLimits())
                .isEqualTo(server.getSpec().getContainers().getFirst().getResources().getRequests());
    }

    @Test
    void clientPodCarriesItsPlacementAndTheRunsOwnerReference() throws IOException {
        BenchmarkRun run = run();
        RunPlan plan = RunPlanner.plan(run);
        Pod client = PodFactory.clientPod(run, plan, plan.clients().get(2));
        assertGolden(client, "client-pod.yaml");
        assertThat(client.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(run.getMetadata().getUid()));
    }

    @Test
    void unpinnedRunsLimitOnlyMemoryAndLeaveTheRunUntouched() throws IOException {
        BenchmarkRun run = run();
        run.getSpec().placement.pinCpus = false;
        run.getSpec().placement.separateNodes = false;
        run.getSpec().server.cpus = "1.5";
        Pod server = PodFactory.serverPod(run, RunPlanner.plan(run));
        assertThat(server.getSpec().getContainers().getFirst().getResources().getLimits()).containsOnlyKeys("memory");
        assertThat(server.getSpec().getContainers().getFirst().getResources().getRequests().get("cpu").toString()).isEqualTo("1500m");
        assertThat(server.getSpec().getAffinity()).isNull();
        assertThat(server.getSpec().getContainers().getFirst().getEnv())
                .noneMatch(e -> e.getValue() != null && e.getValue().contains("ActiveProcessorCount"));
        assertThat(run.getSpec().placement.pinCpus).isFalse();
    }

    @Test
    void podSettingsOfARoleReachItsPodsAndNoOther() throws IOException {
        BenchmarkRun run = BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: settings, namespace: bench, uid: 5e77c0de-0000-4000-8000-000000000001}
                spec:
                  server: {image: registry.example.com/chappe:1, cpus: 1}
                  clients:
                    count: 1
                    rate: 500
                    cpus: 1
                    pod:
                      imagePullSecrets: [registry-credentials]
                      imagePullPolicy: Always
                      env: [{name: TZ, value: UTC}, {name: TOKEN, valueFrom: {secretKeyRef: {name: load, key: token}}}]
                      annotations: {sidecar.istio.io/inject: "false"}
                      priorityClassName: benchmark
                      affinity:
                        nodeAffinity:
                          requiredDuringSchedulingIgnoredDuringExecution:
                            nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [load]}]}]
                  duration: 10s
                  warmup: 2s
                """.getBytes(java.nio.charset.StandardCharsets.UTF_8)), "settings.yaml");
        RunPlan plan = RunPlanner.plan(run);
        Pod client = PodFactory.clientPod(run, plan, plan.clients().getFirst());
        assertThat(client.getSpec().getImagePullSecrets()).extracting(r -> r.getName()).containsExactly("registry-credentials");
        assertThat(client.getSpec().getContainers().getFirst().getImagePullPolicy()).isEqualTo("Always");
        assertThat(client.getSpec().getContainers().getFirst().getEnv()).extracting(e -> e.getName())
                .contains("PACER_ADMIN_PORT", "TZ", "TOKEN");
        assertThat(client.getMetadata().getAnnotations()).containsEntry("sidecar.istio.io/inject", "false");
        assertThat(client.getSpec().getPriorityClassName()).isEqualTo("benchmark");
        assertThat(client.getSpec().getAffinity().getNodeAffinity()).isNotNull();
        assertThat(client.getSpec().getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                .as("the roles still kept apart").singleElement()
                .satisfies(t -> assertThat(t.getLabelSelector().getMatchLabels()).containsEntry(PodFactory.LABEL_ROLE, PodFactory.ROLE_SERVER));
        assertThat(client.getSpec().getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
                .as("the clients spread over their nodes").singleElement()
                .satisfies(t -> assertThat(t.getPodAffinityTerm().getLabelSelector().getMatchLabels())
                        .containsEntry(PodFactory.LABEL_ROLE, PodFactory.ROLE_CLIENT).containsEntry(PodFactory.LABEL_RUN, run.getMetadata().getName()));
        Pod server = PodFactory.serverPod(run, plan);
        assertThat(server.getSpec().getImagePullSecrets()).isEmpty();
        assertThat(server.getSpec().getPriorityClassName()).isNull();
        assertThat(server.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).isEmpty();
    }

    /** A server's own configuration and writable paths (nginx's) beside pacer's /tmp, in its pod alone, read-only root kept. */
    @Test
    void aServersVolumesAreMountedBesidePacersTmpAndTheRootStaysReadOnly() throws IOException {
        BenchmarkRun run = BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: nginx, namespace: bench, uid: 5e77c0de-0000-4000-8000-000000000002}
                spec:
                  server:
                    image: nginxinc/nginx-unprivileged:1.27
                    port: 8080
                    measure: probe
                    cpus: 1
                    pod:
                      volumes:
                        - {name: conf, configMap: {name: nginx-ok}}
                        - {name: cache, emptyDir: {sizeLimit: 16Mi}}
                      volumeMounts:
                        - {name: conf, mountPath: /etc/nginx/conf.d, readOnly: true}
                        - {name: cache, mountPath: /var/cache/nginx}
                  clients: {count: 1, rate: 500, cpus: 1}
                  duration: 10s
                  warmup: 2s
                """.getBytes(java.nio.charset.StandardCharsets.UTF_8)), "nginx.yaml");
        assertThat(BenchmarkRunValidation.validate(run.getSpec())).isEmpty();
        RunPlan plan = RunPlanner.plan(run);
        Pod server = PodFactory.serverPod(run, plan);
        assertThat(server.getSpec().getVolumes()).extracting(v -> v.getName()).containsExactly("tmp", "conf", "cache");
        assertThat(server.getSpec().getVolumes().get(1).getConfigMap().getName()).isEqualTo("nginx-ok");
        assertThat(server.getSpec().getVolumes().get(2).getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("16Mi"));
        var container = server.getSpec().getContainers().getFirst();
        assertThat(container.getVolumeMounts()).extracting(m -> m.getMountPath())
                .containsExactly("/tmp", "/etc/nginx/conf.d", "/var/cache/nginx");
        assertThat(container.getVolumeMounts().get(1).getReadOnly()).isTrue();
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(server.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        Pod client = PodFactory.clientPod(run, plan, plan.clients().getFirst());
        assertThat(client.getSpec().getVolumes()).extracting(v -> v.getName()).containsExactly("tmp");
        assertThat(client.getSpec().getContainers().getFirst().getVolumeMounts()).extracting(m -> m.getMountPath()).containsExactly("/tmp");
    }

    /** The kubelet's checks never reach the probe as requests: the readiness path once at startup, then TCP connects. */
    @Test
    void aServerTheProbeMeasuresIsCheckedWithoutRequestsTheProbeWouldTime() throws IOException {
        BenchmarkRun run = BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: probed, namespace: bench}
                spec:
                  server: {image: nginx:1.27, cpus: 1, measure: probe, readinessPath: /healthz}
                  clients: {count: 1, rate: 500, cpus: 1}
                  duration: 10s
                  warmup: 2s
                """.getBytes(StandardCharsets.UTF_8)), "probed.yaml");
        Container server = PodFactory.serverPod(run, RunPlanner.plan(run)).getSpec().getContainers().getFirst();
        assertThat(server.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(server.getReadinessProbe().getHttpGet()).isNull();
        assertThat(server.getReadinessProbe().getTcpSocket().getPort().getStrVal()).isEqualTo("http");
    }

    /** The probe pod lives in the operator's namespace: the secrets the run names are the run namespace's, not its. */
    @Test
    void theProbePodPullsWithTheOperatorsSecretsNotTheRuns() throws IOException {
        BenchmarkRun run = BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: probed, namespace: bench, uid: 5e77c0de-0000-4000-8000-000000000002}
                spec:
                  server:
                    image: registry.example.com/chappe:1
                    cpus: 1
                    measure: probe
                    pod: {imagePullSecrets: [bench-registry]}
                  clients: {count: 1, rate: 500, cpus: 1}
                  duration: 10s
                  warmup: 2s
                """.getBytes(java.nio.charset.StandardCharsets.UTF_8)), "probed.yaml");
        RunPlan plan = RunPlanner.plan(run);
        Pod probe = PodFactory.probePod(run, plan, new ProbeSettings("registry.example.com/pacer/probe:0.1.0",
                "pacer-system", List.of("pacer-registry")), "node-1", "10.0.0.7");
        assertThat(probe.getMetadata().getNamespace()).isEqualTo("pacer-system");
        assertThat(probe.getSpec().getImagePullSecrets()).extracting(r -> r.getName()).containsExactly("pacer-registry");
        assertThat(PodFactory.serverPod(run, plan).getSpec().getImagePullSecrets()).extracting(r -> r.getName())
                .containsExactly("bench-registry");
        assertThat(probe.getSpec().getContainers().getFirst().getArgs()).contains("--listen=10.0.0.7:8080");
        Pod ipv6 = PodFactory.probePod(run, plan, new ProbeSettings("registry.example.com/pacer/probe:0.1.0",
                "pacer-system", List.of()), "node-1", "fd00:10:244::7");
        assertThat(ipv6.getSpec().getContainers().getFirst().getArgs()).as("an IPv6 pod address, bracketed")
                .contains("--listen=[fd00:10:244::7]:8080");
    }
}
