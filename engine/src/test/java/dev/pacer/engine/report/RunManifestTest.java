package dev.pacer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.contract.AgentContract;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.contract.AgentInfo;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.analysis.AnalysisInput;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import org.junit.jupiter.api.Test;

class RunManifestTest {
    static RunPlan plan() throws IOException {
        return RunPlanner.plan(BenchmarkRunYaml.read(new ByteArrayInputStream("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: m}
                spec:
                  server: {image: pacer/server-jetty12:0.1.0, args: [--mode=core], cpus: "2", measure: both}
                  clients: {count: 1, rate: 60k, cpus: "2"}
                  duration: 180s
                """.getBytes(StandardCharsets.UTF_8)), "m.yaml"));
    }

    @Test
    void everyRoleSaysWhatRanWhereWithTheEffectiveSpec() throws IOException {
        Map<String, Object> host = new LinkedHashMap<>(Map.of("cpuModel", "AMD EPYC 9654", "onlineCpus", 96, "governor", "performance"));
        Map<String, AgentInfo> infos = new LinkedHashMap<>();
        infos.put("server", new AgentInfo("server", "0.1.0", "agent", 7L, "m-server", 65532, "2-3", 2, 2, "6.18.0",
                new AgentInfo.Jvm("25.0.1+8", "Eclipse Adoptium", "OpenJDK", List.of("-XX:ActiveProcessorCount=2"), 1L), 0L, 1000L,
                List.of("processing"), Map.of("host", host)));
        infos.put(AgentContract.ROLE_PROBE, new AgentInfo("server", "0.1.0", "probe", null, "probe-x", null, null, null, null, "6.18.0",
                null, 0L, 1000L, List.of("service", "residence"), Map.of()));
        RunCollector.Collected collected = new RunCollector.Collected(new AnalysisInput(0, 1000, 1000, Optional.empty(), null, List.of(),
                AnalysisInput.Criteria.DEFAULT), Map.of(), infos, Map.of())
                .placedAt(Map.of("server", new RunCollector.Placed("pacer/server-jetty12:0.1.0", "docker.io/pacer/server-jetty12@sha256:ab12", "node-a")));

        RunManifest manifest = RunManifest.of(plan(), collected);

        assertThat(manifest.pacerVersion()).isEqualTo("0.1.0");
        assertThat(manifest.roles()).containsOnlyKeys("server", AgentContract.ROLE_PROBE, "client-0");
        RunManifest.Role server = manifest.roles().get("server");
        assertThat(server.imageId()).isEqualTo("docker.io/pacer/server-jetty12@sha256:ab12");
        assertThat(server.node()).isEqualTo("node-a");
        assertThat(server.cpuModel()).isEqualTo("AMD EPYC 9654");
        assertThat(server.onlineCpus()).isEqualTo(96);
        assertThat(server.governor()).isEqualTo("performance");
        assertThat(server.jvm()).isEqualTo("Eclipse Adoptium 25.0.1+8");
        assertThat(server.jvmArguments()).containsExactly("-XX:ActiveProcessorCount=2");
        assertThat(manifest.roles().get(AgentContract.ROLE_PROBE).measuredBy()).isEqualTo("probe");
        assertThat(manifest.roles().get("client-0").measuredBy()).as("no agent answered for it").isEqualTo("none");
        assertThat(manifest.plan()).containsEntry("load", "1x60k").containsEntry("warmupSeconds", 60.0).containsEntry("durationSeconds", 180.0);
        @SuppressWarnings("unchecked")
        Map<String, Object> serverPlan = (Map<String, Object>) manifest.plan().get("server");
        assertThat(serverPlan).containsEntry("measure", "both").containsEntry("cpuMillis", 2000L);
        @SuppressWarnings("unchecked")
        Map<String, Object> criteria = (Map<String, Object>) manifest.plan().get("criteria");
        assertThat(criteria).containsEntry("rateTolerance", 0.01).containsEntry("maxSendLagP99Ms", 10L);
    }
}
