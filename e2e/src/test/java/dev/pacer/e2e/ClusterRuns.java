package dev.pacer.e2e;

import java.io.IOException;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.BenchmarkRunYaml;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The cluster tests' runs: the cluster quickstart under another name, and a run's status as the API server has it. */
final class ClusterRuns {
    private ClusterRuns() {
    }

    static BenchmarkRun quickstart(String namespace, String name) throws IOException {
        BenchmarkRun run = BenchmarkRunYaml.read(Processes.HOME.resolve("examples/cluster-quickstart.yaml"));
        run.getMetadata().setName(name);
        run.getMetadata().setNamespace(namespace);
        return run;
    }

    /** {@code null} while the run does not exist. */
    static BenchmarkRunStatus status(KubernetesClient client, String namespace, String name) {
        BenchmarkRun run = client.resources(BenchmarkRun.class).inNamespace(namespace).withName(name).get();
        return run == null ? null : run.getStatus();
    }
}
