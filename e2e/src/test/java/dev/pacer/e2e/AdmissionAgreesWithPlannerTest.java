package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.suite.SuitePlan;
import io.fabric8.kubeapitest.junit.EnableKubeAPIServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Admission says what the planner says. The corpus of bad input ({@code src/test/resources/bad-runs/}, each file naming
 * the field it gets wrong in its first line) goes through both, case by case: the committed CRD on a real
 * kube-apiserver (a server-side dry run, as {@code kubectl apply --dry-run=server} does) and the planner that
 * {@code ./pacer run} and the operator share. Each must refuse it and name the field, except the few whose second
 * line says {@code # admission: accepts} and why: admission must still accept those (a gap closed shows here), and
 * {@code OperatorApiServerTest} shows the operator failing them. Every example of the project goes through both too,
 * and both must take it.
 */
@Tag(ApiServerFixtures.TAG)
@EnableKubeAPIServer(kubeAPIVersion = "1.32.2")
class AdmissionAgreesWithPlannerTest {
    static final Path CORPUS = Processes.HOME.resolve("e2e/src/test/resources/bad-runs");
    static final Path EXAMPLES = Processes.HOME.resolve("examples");
    static KubernetesClient client;

    @BeforeAll
    static void applyCrds() throws Exception {
        ApiServerFixtures.applyCommittedCrd(client);
    }

    static Stream<Path> corpus() throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(CORPUS)) {
            files = listed.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).as("the corpus").hasSizeGreaterThanOrEqualTo(60);
        return files.stream();
    }

    static Stream<Path> examples() throws IOException {
        List<Path> files;
        try (Stream<Path> walked = Files.walk(EXAMPLES)) {
            files = walked.filter(f -> f.toString().endsWith(".yaml")).filter(AdmissionAgreesWithPlannerTest::isPacerResource).sorted().toList();
        }
        assertThat(files).as("the examples").hasSizeGreaterThanOrEqualTo(15);
        return files.stream();
    }

    private static boolean isPacerResource(Path file) {
        try {
            return Files.readString(file).contains("kind: Benchmark");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void badInputIsRefusedByAdmissionAndByThePlannerNamingTheSameField(Path file) throws IOException {
        String yaml = Files.readString(file);
        String field = expectedField(yaml);

        if (admissionAccepts(yaml)) {
            assertThatCode(() -> dryRunCreate(yaml)).as("admission of %s, a known gap", file.getFileName()).doesNotThrowAnyException();
        } else {
            assertThatThrownBy(() -> dryRunCreate(yaml)).as("admission of %s", file.getFileName())
                    .isInstanceOf(KubernetesClientException.class).hasMessageContaining(field);
        }
        assertThat(plannerRefusal(file)).as("the planner on %s", file.getFileName()).hasValueSatisfying(
                message -> assertThat(message).contains(field));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void everyExampleIsTakenByAdmissionAndByThePlanner(Path file) throws IOException {
        String yaml = Files.readString(file);
        assertThatCode(() -> dryRunCreate(yaml)).as("admission of %s", file).doesNotThrowAnyException();
        assertThat(plannerRefusal(file)).as("the planner on %s", file).isEmpty();
    }

    /**
     * The Jetty comparison's script applies the suite example, and with Chappe's images a suite it writes: Chappe's
     * servers measured by the probe, the Jetty servers by both. Both shapes must be taken by admission and the planner.
     */
    @ParameterizedTest(name = "run-all.sh with Chappe: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void theComparisonScriptsSuiteIsTakenWithAndWithoutChappe(boolean chappe, @org.junit.jupiter.api.io.TempDir Path work) throws Exception {
        ProcessBuilder script = new ProcessBuilder("bash", EXAMPLES.resolve("jetty11-vs-jetty12-vs-loom/run-all.sh").toString())
                .redirectErrorStream(true);
        script.environment().put("PRINT", "1");
        if (chappe) {
            script.environment().put("CHAPPE_JVM_IMAGE", "registry.example.com/chappe-jvm:test");
            script.environment().put("CHAPPE_NATIVE_IMAGE", "registry.example.com/chappe-native:test");
        }
        Process process = script.start();
        String yaml = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(yaml).isZero();
        List<String> jetty = yaml.lines().filter(line -> line.startsWith("    - {name: jetty")).toList();
        assertThat(jetty).as("the Jetty servers").hasSize(4).allSatisfy(line -> assertThat(line.contains("measure: both"))
                .as("measured by both: %s", line).isEqualTo(chappe));
        assertThat(yaml.contains("name: chappe-native")).as("Chappe's servers").isEqualTo(chappe);
        assertThat(yaml).as("one path for every server, Chappe's own with Chappe")
                .contains(chappe ? "request: {method: GET, path: /}" : "request: {method: GET, path: /plaintext}");
        Path file = work.resolve("suite.yaml");
        Files.writeString(file, yaml);
        assertThatCode(() -> dryRunCreate(yaml)).as("admission").doesNotThrowAnyException();
        assertThat(plannerRefusal(file)).as("the planner").isEmpty();
    }

    /** The corpus file says that admission cannot refuse it (its second line). */
    static boolean admissionAccepts(String yaml) {
        return yaml.lines().skip(1).findFirst().orElse("").startsWith("# admission: accepts");
    }

    /** The field a corpus file gets wrong (its first line). */
    static String expectedField(String yaml) {
        return yaml.lines().findFirst().orElseThrow().replace("# expect:", "").strip();
    }

    /** Each document of the file (an example may bring the ConfigMap its server reads), as the API server takes it. */
    private static void dryRunCreate(String yaml) {
        for (String document : yaml.split("(?m)^---\\s*$")) {
            if (document.lines().allMatch(line -> line.isBlank() || line.startsWith("#"))) {
                continue;
            }
            GenericKubernetesResource resource = Serialization.unmarshal(document, GenericKubernetesResource.class);
            resource.getMetadata().setNamespace("default");
            String apiVersion = resource.getApiVersion() == null ? "pacer.dev/v1alpha1" : resource.getApiVersion();
            client.genericKubernetesResources(apiVersion, resource.getKind()).inNamespace("default").resource(resource)
                    .dryRun().create();
        }
    }

    /** What {@code ./pacer run} would say before starting anything, or empty when it would plan the file. */
    private static Optional<String> plannerRefusal(Path file) {
        try {
            if (BenchmarkSuite.KIND.equals(BenchmarkRunYaml.kind(file))) {
                SuitePlan.of(BenchmarkRunYaml.readSuite(file));
            } else if (dev.pacer.api.BenchmarkSchedule.KIND.equals(BenchmarkRunYaml.kind(file))) {
                dev.pacer.engine.schedule.SchedulePlan.of(BenchmarkRunYaml.readSchedule(file));
            } else {
                RunPlanner.plan(BenchmarkRunYaml.read(file));
            }
            return Optional.empty();
        } catch (IOException | IllegalArgumentException refused) {    // a document that does not parse, or a plan refused
            return Optional.of(refused.getMessage());
        }
    }
}
