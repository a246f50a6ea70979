package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunValidation;
import dev.pacer.api.Phase;
import dev.pacer.api.RunTemplate;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The committed CRD on a real kube-apiserver (fabric8 kube-api-test with the test cluster's own binaries): schema
 * defaults, CEL rules and the status subresource as the operator will meet them.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class BenchmarkRunApiServerTest {
    static KubernetesClient client;

    @BeforeAll
    static void applyCrd() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
    }

    static BenchmarkRun quickstart(String name) throws Exception {
        return ApiServerFixtures.quickstart(name);
    }

    @Test
    void validRunIsStoredWithSchemaDefaultsAndTakesAStatus() throws Exception {
        BenchmarkRun run = quickstart("accepted");
        run.getSpec().samplePeriod = null;   // the schema's default fills it
        run.getSpec().server.port = null;
        BenchmarkRun stored = client.resources(BenchmarkRun.class).resource(run).create();
        assertThat(stored.getSpec().samplePeriod).isEqualTo("1s");
        assertThat(stored.getSpec().server.port).isEqualTo(8080);
        assertThat(stored.getSpec().clients.rate).isEqualTo("500");

        BenchmarkRunStatus status = new BenchmarkRunStatus();
        status.phase = Phase.Starting;
        status.load = "2x500";
        stored.setStatus(status);
        BenchmarkRun patched = client.resources(BenchmarkRun.class).resource(stored).updateStatus();
        assertThat(patched.getStatus().phase).isEqualTo(Phase.Starting);
        assertThat(client.resources(BenchmarkRun.class).inNamespace("default").withName("accepted").get().getStatus().load)
                .isEqualTo("2x500");
    }

    @Test
    void badRunsAreRejectedByTheApiServerNamingTheField() throws Exception {
        BenchmarkRun negative = quickstart("negative-count");
        negative.getSpec().clients.count = -1;
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(negative).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.clients.count");

        BenchmarkRun tooLong = quickstart("too-long");
        tooLong.getSpec().timeout = "20s";
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(tooLong).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.timeout")
                .hasMessageContaining("longer than spec.warmup + spec.duration");

        BenchmarkRun fractional = quickstart("fractional-cpus");
        fractional.getSpec().server.cpus = "1.5";
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(fractional).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.server.cpus");

        BenchmarkRun h2InClear = quickstart("h2-in-clear");
        h2InClear.getSpec().clients.httpVersion = "h2";
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(h2InClear).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.clients.httpVersion")
                .hasMessageContaining("set spec.request.scheme to https");

        BenchmarkRun tlsInClear = quickstart("tls-in-clear");
        tlsInClear.getSpec().tls = new RunTemplate.Tls();
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(tlsInClear).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.tls").hasMessageContaining("applies to https only");

        BenchmarkRun probedTls = quickstart("probed-tls");
        probedTls.getSpec().request.scheme = "https";
        probedTls.getSpec().server.measure = "probe";
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(probedTls).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.request.scheme")
                .hasMessageContaining("must not be https when spec.server.measure is probe or both");

        BenchmarkRun oldTls = quickstart("old-tls");
        oldTls.getSpec().request.scheme = "https";
        oldTls.getSpec().tls = new RunTemplate.Tls();
        oldTls.getSpec().tls.protocols = java.util.List.of("TLSv1");
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(oldTls).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.tls.protocols");

        BenchmarkRun unparsable = quickstart("unparsable-rate");
        unparsable.getSpec().clients.rate = "fast";
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(unparsable).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.clients.rate");
    }

    @Test
    void quantitiesAreTakenAsNumbersOrStringsAndPodSettingsAsInAPodSpec() throws Exception {
        GenericKubernetesResource raw = Serialization.unmarshal("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: plain-numbers, namespace: default}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, cpus: 2, memory: 1073741824}
                  clients:
                    count: 2
                    rate: 500
                    cpus: 1
                    memory: "1Gi"
                    pod:
                      imagePullSecrets: [registry-credentials]
                      env: [{name: TZ, value: UTC}, {name: TOKEN, valueFrom: {secretKeyRef: {name: load, key: token}}}]
                      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [load]}]}]}}}
                  placement: {clients: {tolerations: [{key: dedicated, operator: Equal, value: load, effect: NoSchedule}]}}
                  warmup: 2s
                  duration: 10s
                """, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class);
        client.genericKubernetesResources("pacer.dev/v1alpha1", "BenchmarkRun").inNamespace("default").resource(raw).create();
        BenchmarkRun stored = client.resources(BenchmarkRun.class).inNamespace("default").withName("plain-numbers").get();
        assertThat(stored.getSpec().server.cpus).isEqualTo("2");
        assertThat(stored.getSpec().server.memory).isEqualTo("1073741824");
        assertThat(stored.getSpec().clients.rate).isEqualTo("500");
        assertThat(BenchmarkRunValidation.validate(stored.getSpec())).isEmpty();
        assertThat(stored.getSpec().clients.pod.env).hasSize(2);
        assertThat(stored.getSpec().clients.pod.affinity).containsKey("nodeAffinity");
        assertThat(stored.getSpec().placement.clients.tolerations).singleElement()
                .satisfies(t -> assertThat(t).containsEntry("value", "load"));
    }
}
