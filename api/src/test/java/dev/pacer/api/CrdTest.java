package dev.pacer.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The committed CRD in crds/ is what the classes generate: regenerate with 'make build' and commit when this fails. */
class CrdTest {
    static final String FILE = "benchmarkruns.pacer.dev-v1.yml";

    static final String SUITE_FILE = "benchmarksuites.pacer.dev-v1.yml";

    static final String SCHEDULE_FILE = "benchmarkschedules.pacer.dev-v1.yml";

    @ParameterizedTest
    @ValueSource(strings = {FILE, SUITE_FILE, SCHEDULE_FILE})
    void committedCrdIsNotStale(String file) throws IOException {
        String generated = Files.readString(Path.of("target/classes/META-INF/fabric8").resolve(file));
        String committed = Files.readString(Path.of("../crds").resolve(file));
        assertThat(committed)
                .as("crds/%s is stale: copy api/target/classes/META-INF/fabric8/%s over it", file, file)
                .isEqualTo(generated);
    }

    @Test
    void suiteCrdCarriesItsColumnsRulesAndDescriptions() throws IOException {
        String crd = Files.readString(Path.of("../crds").resolve(SUITE_FILE));
        assertThat(crd).contains("shortNames:\n    - \"bs\"").contains("- \"pacer\"").contains("status: {}")
                .contains("name: \"PHASE\"").contains("name: \"RUNS\"").contains("name: \"CURRENT\"")
                .contains("!(has(self.rates) && has(self.sweep))");
        assertThat(crd.indexOf("name: \"AGE\"")).as("AGE last").isGreaterThan(crd.indexOf("name: \"CURRENT\""));
        JsonNode root = BenchmarkRunYaml.YAML.readTree(Path.of("../crds").resolve(SUITE_FILE).toFile())
                .at("/spec/versions/0/schema/openAPIV3Schema");
        List<String> undescribed = new ArrayList<>();
        List<String> visited = new ArrayList<>();
        walk("", root, undescribed, visited);
        assertThat(visited).contains(".spec", ".status", ".spec.template.clients.rate", ".spec.servers[].name", ".spec.servers[].measure",
                ".spec.sweep.maxClientP99", ".status.conditions[].message");
        assertThat(undescribed).isEmpty();
    }

    @Test
    void scheduleCrdCarriesItsColumnsRulesAndDescriptionsAndATemplateThatMayChange() throws IOException {
        String crd = Files.readString(Path.of("../crds").resolve(SCHEDULE_FILE));
        assertThat(crd).contains("shortNames:\n    - \"bsched\"").contains("- \"pacer\"").contains("status: {}")
                .contains("name: \"SCHEDULE\"").contains("name: \"REGRESSED\"").contains("name: \"STALE\"")
                .contains("has(self.run) != has(self.suite)")
                .as("the run's and suite's immutability is on their resources, not on the template's types").doesNotContain("oldSelf");
        assertThat(crd.indexOf("name: \"AGE\"")).as("AGE last").isGreaterThan(crd.indexOf("name: \"NEXT\""));
        JsonNode root = BenchmarkRunYaml.YAML.readTree(Path.of("../crds").resolve(SCHEDULE_FILE).toFile())
                .at("/spec/versions/0/schema/openAPIV3Schema");
        List<String> undescribed = new ArrayList<>();
        List<String> visited = new ArrayList<>();
        walk("", root, undescribed, visited);
        assertThat(visited).contains(".spec.schedule", ".spec.template.run.clients.rate", ".spec.template.suite.servers[].name",
                ".status.slots[].state", ".status.conditions[].message");
        assertThat(undescribed).isEmpty();
        assertThat(Files.readString(Path.of("../crds").resolve(FILE))).contains("self == oldSelf");
        assertThat(Files.readString(Path.of("../crds").resolve(SUITE_FILE))).contains("self == oldSelf");
    }

    @Test
    void crdCarriesTheResourceOfTheDesign() throws IOException {
        String crd = Files.readString(Path.of("../crds").resolve(FILE));
        assertThat(crd).contains("shortNames:\n    - \"br\"").contains("status: {}")
                .contains("name: \"PHASE\"").contains("name: \"LOAD\"").contains("name: \"VERDICT\"")
                .contains("name: \"P99-INT-US\"").contains("name: \"MAX-INT-US\"").contains("name: \"AGE\"")
                .contains("duration(self.warmup) + duration(self.duration) < duration(self.timeout)");
    }

    @Test
    void everyFieldIsDescribedForKubectlExplain() throws IOException {
        JsonNode crd = BenchmarkRunYaml.YAML.readTree(Path.of("../crds").resolve(FILE).toFile());
        JsonNode root = crd.at("/spec/versions/0/schema/openAPIV3Schema");
        List<String> undescribed = new ArrayList<>();
        List<String> visited = new ArrayList<>();
        walk("", root, undescribed, visited);
        assertThat(visited).contains(".spec", ".status", ".spec.clients.rate", ".spec.placement.server.nodeSelector", ".spec.criteria.maxP99",
                ".status.conditions[].reason", ".status.result.server.p99IntegralMicros");
        assertThat(undescribed).isEmpty();
    }

    private static void walk(String path, JsonNode schema, List<String> undescribed, List<String> visited) {
        JsonNode properties = schema.path("properties");
        properties.properties().forEach(entry -> {
            String child = path + "." + entry.getKey();
            visited.add(child);
            if (!entry.getValue().hasNonNull("description")) {
                undescribed.add(child);
            }
            walk(child, entry.getValue(), undescribed, visited);
            walk(child + "[]", entry.getValue().path("items"), undescribed, visited);
        });
    }
}
