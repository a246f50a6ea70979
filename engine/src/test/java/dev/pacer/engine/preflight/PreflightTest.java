package dev.pacer.engine.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.preflight.Preflight.Finding;
import dev.pacer.engine.preflight.Preflight.Level;
import dev.pacer.engine.preflight.Preflight.NodeFacts;
import org.junit.jupiter.api.Test;

/** The preflight's judgement on hand-made node facts: each problem names what is wrong and the fix. */
class PreflightTest {
    static NodeFacts node(String name, String policy, long cpus, String kernel, Map<String, String> labels) {
        return new NodeFacts(name, policy, policy == null ? "nodes/proxy is forbidden" : null, cpus * 1000, kernel, "amd64", labels, true);
    }

    static BenchmarkRun run(String spec) throws Exception {
        return BenchmarkRunYaml.read(new ByteArrayInputStream(("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: r}
                spec:
                """ + spec.indent(2)).getBytes(StandardCharsets.UTF_8)), "r.yaml");
    }

    static List<Finding> check(String spec, List<NodeFacts> nodes) throws Exception {
        BenchmarkRun run = run(spec);
        return Preflight.run(RunPlanner.plan(run), nodes);
    }

    static final String PINNED = """
            server: {image: pacer/server-jetty12:0.1.0, cpus: "8", memory: 8Gi}
            clients: {count: 4, rate: 60k, cpus: "4", memory: 4Gi}
            warmup: 60s
            duration: 180s
            """;

    @Test
    void aNodeWithoutTheStaticPolicyIsAWarningNamingTheFix() {
        List<Finding> findings = Preflight.cluster(List.of(node("n1", "none", 16, "6.12.0", Map.of()), node("n2", "static", 16, "6.12.0", Map.of())),
                false, false);
        assertThat(findings).filteredOn(f -> f.subject().equals("node/n1")).singleElement().satisfies(f -> {
            assertThat(f.level()).isEqualTo(Level.WARNING);
            assertThat(f.message()).contains("cpuManagerPolicy none", "cpuManagerPolicy: static");
        });
        assertThat(findings).filteredOn(f -> f.subject().equals("node/n2")).singleElement().extracting(Finding::level).isEqualTo(Level.OK);
    }

    @Test
    void monitorsWithoutThePrometheusOperatorCrdsAreAWarningSayingNothingScrapesPacer() {
        assertThat(Preflight.cluster(List.of(node("n", "static", 4, "6.12", Map.of())), true, false))
                .anySatisfy(f -> assertThat(f.toString()).startsWith("warning  monitors").contains("monitoring.coreos.com", "nothing scrapes pacer"));
        assertThat(Preflight.cluster(List.of(node("n", "static", 4, "6.12", Map.of())), true, true))
                .anySatisfy(f -> assertThat(f.toString()).startsWith("ok  monitors"));
    }

    @Test
    void aPinnedServerNoNodeCanPinIsAProblemNamingTheFieldTheNodesAndTheFix() throws Exception {
        List<Finding> findings = check(PINNED, List.of(node("a", "none", 32, "6.12", Map.of()), node("b", "static", 4, "6.12", Map.of())));
        assertThat(findings).filteredOn(f -> f.subject().equals("spec.server.cpus")).singleElement().satisfies(f -> {
            assertThat(f.level()).isEqualTo(Level.PROBLEM);
            assertThat(f.message()).contains("8 exclusive CPUs", "a: none, 32 CPUs", "b: static, 4 CPUs", "pinCpus: false");
        });
    }

    @Test
    void clientsNeedRoomApartFromTheServer() throws Exception {
        // the server (8 CPUs) fits only on the first; 4 clients × 4 CPUs need 16 apart from it: 7 hold one client
        List<NodeFacts> twoNodes = List.of(node("server", "static", 16, "6.12", Map.of()), node("clients", "static", 7, "6.12", Map.of()));
        List<Finding> tight = check(PINNED, twoNodes);
        assertThat(tight).filteredOn(f -> f.subject().equals("spec.clients.cpus")).singleElement().satisfies(f -> {
            assertThat(f.level()).isEqualTo(Level.PROBLEM);
            assertThat(f.message()).contains("4 clients on 4 exclusive CPUs each", "room for 1");
        });
        List<NodeFacts> roomy = List.of(node("server", "static", 16, "6.12", Map.of()), node("clients", "static", 16, "6.12", Map.of()));
        assertThat(check(PINNED, roomy)).noneMatch(f -> f.level() == Level.PROBLEM);
        // on one node, with separateNodes: false, 8 + 4 × 4 = 24 CPUs
        String together = PINNED + "placement: {separateNodes: false}\n";
        assertThat(check(together, List.of(node("one", "static", 23, "6.12", Map.of())))).anyMatch(f -> f.level() == Level.PROBLEM);
        assertThat(check(together, List.of(node("one", "static", 24, "6.12", Map.of())))).noneMatch(f -> f.level() == Level.PROBLEM);
    }

    @Test
    void aSmallNodesShapeOneExclusiveCpuForTheServerAndUnpinnedClientsThatAskForCpu() throws Exception {
        String quickstart = """
                server: {image: pacer/server-jetty12:0.1.0, cpus: "1", memory: 512Mi}
                clients: {count: 2, rate: "200", cpus: "0", memory: 512Mi}
                warmup: 5s
                duration: 15s
                placement: {pinCpus: true, separateNodes: false, clients: {pinCpus: false}}
                """;
        assertThat(check(quickstart, List.of(node("node-1", "static", 1, "6.12.57", Map.of())))).noneMatch(f -> f.level() == Level.PROBLEM)
                .anySatisfy(f -> assertThat(f.toString()).isEqualTo("ok  spec.server.cpus: 1 exclusive CPUs on [node-1]"));
        assertThat(check(quickstart, List.of(node("node-1", "none", 2, "6.12.57", Map.of()))))
                .anySatisfy(f -> assertThat(f.toString()).startsWith("problem  spec.server.cpus").contains("node-1: none"));
        assertThat(check(quickstart, List.of(node("node-1", "static", 1, "6.12.57", Map.of()))))
                .as("clients without a CPU request: the least weight on their node")
                .anySatisfy(f -> assertThat(f.toString()).startsWith("warning  spec.clients.cpus").contains("cpu.shares 2", "cpus: 200m"));
        assertThat(check(quickstart.replace("cpus: \"0\", memory", "cpus: 200m, memory"), List.of(node("node-1", "static", 1, "6.12.57", Map.of()))))
                .noneMatch(f -> f.subject().equals("spec.clients.cpus"));
    }

    @Test
    void theProbeNeedsLinux63OnTheServersNodes() throws Exception {
        String probed = """
                server: {image: nginx:1.27, cpus: "1", memory: 512Mi, measure: probe}
                clients: {count: 1, rate: "200", cpus: "1", memory: 512Mi}
                placement: {separateNodes: false}
                warmup: 5s
                duration: 15s
                """;
        assertThat(check(probed, List.of(node("old", "static", 4, "6.1.0-27-amd64", Map.of()))))
                .anySatisfy(f -> assertThat(f.toString()).startsWith("problem  spec.server.measure").contains("old 6.1.0-27-amd64", "6.3"));
        assertThat(check(probed, List.of(node("new", "static", 4, "6.12.57+deb13-amd64", Map.of()))))
                .noneMatch(f -> f.level() == Level.PROBLEM);
    }

    @Test
    void aNodeSelectorNoNodeMatchesIsAProblem() throws Exception {
        String selected = PINNED + "placement: {server: {nodeSelector: {pacer.dev/pool: server}}}\n";
        assertThat(check(selected, List.of(node("a", "static", 64, "6.12", Map.of("pacer.dev/pool", "clients")))))
                .anySatisfy(f -> assertThat(f.toString()).startsWith("problem  spec.placement.server.nodeSelector").contains("pacer.dev/pool"));
    }

    @Test
    void kernelVersions() {
        assertThat(Preflight.kernelAtLeast("6.3.0", Preflight.PROBE_MIN_KERNEL)).isTrue();
        assertThat(Preflight.kernelAtLeast("6.12.57+deb13-amd64", Preflight.PROBE_MIN_KERNEL)).isTrue();
        assertThat(Preflight.kernelAtLeast("7.0", Preflight.PROBE_MIN_KERNEL)).isTrue();
        assertThat(Preflight.kernelAtLeast("6.2.16", Preflight.PROBE_MIN_KERNEL)).isFalse();
        assertThat(Preflight.kernelAtLeast("5.15.0", Preflight.PROBE_MIN_KERNEL)).isFalse();
        assertThat(Preflight.kernelAtLeast("unknown", Preflight.PROBE_MIN_KERNEL)).isFalse();
    }

    static final String SEPARATE_POOLS = """
            server: {image: pacer/server-jetty12:0.1.0, cpus: "1"}
            clients: {count: 4, rate: "500", cpus: 200m}
            duration: 10s
            placement:
              separateNodes: true
              server: {nodeSelector: {pacer.dev/pool: server}}
              clients: {nodeSelector: {pacer.dev/pool: clients}, pinCpus: false}
            """;

    @Test
    void separateNodesOnOneSchedulableNodeIsAProblemNamingTheFieldAndTheFix() throws Exception {
        List<Finding> problems = Preflight.placement(RunPlanner.plan(run("""
                server: {image: pacer/server-jetty12:0.1.0, cpus: "1"}
                clients: {count: 2, rate: "500", cpus: 200m}
                duration: 10s
                placement: {separateNodes: true, clients: {pinCpus: false}}
                """)), List.of(node("only", "static", 2, "6.12", Map.of()),
                new NodeFacts("cordoned", "static", null, 2000, "6.12", "amd64", Map.of(), false)));
        assertThat(problems).singleElement().satisfies(f -> {
            assertThat(f.level()).isEqualTo(Level.PROBLEM);
            assertThat(f.subject()).isEqualTo("spec.placement.separateNodes");
            assertThat(f.message()).contains("[only]", "add a node", "separateNodes: false");
        });
    }

    @Test
    void poolsOnSeparateNodesPlaceWhenEachPoolHasANode() throws Exception {
        var nodes = List.of(node("a", "static", 2, "6.12", Map.of("pacer.dev/pool", "server")),
                node("b", "static", 2, "6.12", Map.of("pacer.dev/pool", "clients")),
                node("c", "static", 2, "6.12", Map.of("pacer.dev/pool", "clients")));
        assertThat(Preflight.placement(RunPlanner.plan(run(SEPARATE_POOLS)), nodes)).isEmpty();
        assertThat(Preflight.run(RunPlanner.plan(run(SEPARATE_POOLS)), nodes)).noneMatch(f -> f.level() == Level.PROBLEM);
    }

    @Test
    void aPoolSelectorMatchingNoSchedulableNodeIsAProblemListingTheNodesLabels() throws Exception {
        var nodes = List.of(node("a", "static", 2, "6.12", Map.of("pacer.dev/pool", "server", "kubernetes.io/hostname", "a")),
                new NodeFacts("b", "static", null, 2000, "6.12", "amd64", Map.of("pacer.dev/pool", "clients"), false));
        List<Finding> problems = Preflight.placement(RunPlanner.plan(run(SEPARATE_POOLS)), nodes);
        assertThat(problems).singleElement().satisfies(f -> {
            assertThat(f.subject()).isEqualTo("spec.placement.clients.nodeSelector");
            assertThat(f.message()).contains("{pacer.dev/pool=clients}", "a [pacer.dev/pool=server]", "b (unschedulable) [pacer.dev/pool=clients]",
                    "label a node so");
            assertThat(f.message()).doesNotContain("kubernetes.io/hostname");
        });
        // pacer check says the same, once
        assertThat(Preflight.run(RunPlanner.plan(run(SEPARATE_POOLS)), nodes))
                .filteredOn(f -> f.subject().equals("spec.placement.clients.nodeSelector")).hasSize(1);
    }

    /** The cluster quickstart's 1-CPU server on nodes that give whole physical cores only: told before the kubelet refuses it. */
    @Test
    void anOddCpuCountWhereTheKubeletGivesWholeCoresOnlyIsWarnedWithTheFix() throws Exception {
        NodeFacts whole = new NodeFacts("ht", "static", null, 16_000, "6.12", "amd64", Map.of(), true, true);
        String oneCpu = """
                server: {image: pacer/server-jetty12:0.1.0, cpus: "1"}
                clients: {count: 1, rate: 1k, cpus: "2"}
                duration: 30s
                placement: {separateNodes: false}
                """;
        assertThat(check(oneCpu, List.of(whole))).filteredOn(f -> f.level() == Level.WARNING).singleElement().satisfies(f -> {
            assertThat(f.subject()).isEqualTo("spec.server.cpus");
            assertThat(f.message()).contains("r's server pins 1 CPU, an odd number", "[ht] run the static CPU manager with full-pcpus-only",
                    "SMTAlignmentError", "ask for 2 CPUs");
        });
        assertThat(check(oneCpu.replace("cpus: \"1\"", "cpus: \"2\""), List.of(whole))).noneMatch(f -> f.level() == Level.WARNING);
        NodeFacts shared = new NodeFacts("plain", "static", null, 16_000, "6.12", "amd64", Map.of(), true, false);
        assertThat(check(oneCpu, List.of(shared))).as("without full-pcpus-only an odd count is fine").noneMatch(f -> f.level() == Level.WARNING);
        assertThat(Preflight.cluster(List.of(whole), false, false)).anySatisfy(f -> assertThat(f.message()).contains("full-pcpus-only"));
    }
}
