package dev.pacer.e2e;

import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunYaml;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;

/** What the tests on a kube-api-test API server share: the committed CRD applied, and runs made from the quickstart. */
final class ApiServerFixtures {
    /**
     * The tag of the tests on a kube-api-test API server: {@code make test} runs them after the others, once the
     * background build of the test cluster's binaries (kube-apiserver among them) is done.
     */
    static final String TAG = "apiserver";

    static final String CRD_NAME = "benchmarkruns.pacer.dev";
    static final String SUITE_CRD_NAME = "benchmarksuites.pacer.dev";
    static final String SCHEDULE_CRD_NAME = "benchmarkschedules.pacer.dev";

    private ApiServerFixtures() {
    }

    /**
     * Applies every committed CRD of crds/ (BenchmarkRun, BenchmarkSuite, BenchmarkSchedule), taking their fields over from an earlier owner
     * such as a Helm release, and waits until each is established.
     */
    static void applyCommittedCrd(KubernetesClient client) throws Exception {
        for (String name : List.of(CRD_NAME, SUITE_CRD_NAME, SCHEDULE_CRD_NAME)) {
            try (InputStream crd = Files.newInputStream(Processes.HOME.resolve("crds/" + name + "-v1.yml"))) {
                CustomResourceDefinition definition = client.apiextensions().v1().customResourceDefinitions().load(crd).item();
                client.apiextensions().v1().customResourceDefinitions().resource(definition).forceConflicts().serverSideApply();
            }
            client.apiextensions().v1().customResourceDefinitions().withName(name)
                    .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions() != null
                            && c.getStatus().getConditions().stream()
                            .anyMatch(cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())), 30, TimeUnit.SECONDS);
        }
    }

    /** examples/quickstart.yaml under another name, in the default namespace. */
    static BenchmarkRun quickstart(String name) throws Exception {
        BenchmarkRun run = BenchmarkRunYaml.read(Processes.HOME.resolve("examples/quickstart.yaml"));
        run.getMetadata().setName(name);
        run.getMetadata().setNamespace("default");
        return run;
    }
}
