package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.Phase;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The committed CRD on a real kube-apiserver (fabric8 kube-api-test with the test cluster's own binaries): schema
 * defaults, CEL rules and the status subresource as the operator will meet them.
 */
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class BenchmarkRunApiServerTest {
    static KubernetesClient client;

    @BeforeAll
    static void applyCrd() throws Exception {
        try (InputStream crd = Files.newInputStream(Processes.HOME.resolve("crds/benchmarkruns.pacer.dev-v1.yml"))) {
            CustomResourceDefinition definition = client.apiextensions().v1().customResourceDefinitions().load(crd).item();
            client.apiextensions().v1().customResourceDefinitions().resource(definition).create();
        }
        client.apiextensions().v1().customResourceDefinitions().withName("benchmarkruns.pacer.dev")
                .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream()
                        .anyMatch(cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())), 30, TimeUnit.SECONDS);
    }

    static BenchmarkRun quickstart(String name) throws Exception {
        BenchmarkRun run = BenchmarkRunYaml.read(Processes.HOME.resolve("examples/quickstart.yaml"));
        run.getMetadata().setName(name);
        run.getMetadata().setNamespace("default");
        return run;
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

        BenchmarkRun unparsable = quickstart("unparsable-rate");
        unparsable.getSpec().clients.rate = "fast";
        assertThatThrownBy(() -> client.resources(BenchmarkRun.class).resource(unparsable).create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("spec.clients.rate");
    }
}
