package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.preflight.Preflight;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code pacer check [RUN.yaml...]}: what the cluster offers pacer, read through the API with the kubeconfig's
 * credentials, judged by {@link Preflight}: each node's CPU manager policy (its kubelet's {@code /configz}, which needs
 * {@code get} on {@code nodes/proxy}), allocatable CPUs and kernel, the Prometheus Operator's CRDs, and for each run
 * given whether its pinned roles can get their exclusive CPUs and its probe can load. Exit 0 when nothing is a problem,
 * 1 otherwise.
 */
@Command(name = "check", description = "Check a cluster before running: the nodes' CPU manager policy, allocatable CPUs and "
        + "kernels, the Prometheus Operator's CRDs, and whether each given run fits.")
final class CheckCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(paramLabel = "RUN.yaml", arity = "0..*", description = "BenchmarkRuns to check against the cluster.")
    List<Path> runs = new ArrayList<>();

    @CommandLine.Mixin
    KubeconfigOption kubeconfig;

    @Option(names = "--no-monitors", description = "Do not check for the Prometheus Operator's CRDs (no ServiceMonitor or PodMonitor wanted).")
    boolean noMonitors;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<BenchmarkRun> parsed = new ArrayList<>();
        for (Path file : runs) {
            try {
                parsed.add(BenchmarkRunYaml.read(file));
            } catch (IOException | IllegalArgumentException e) {
                err.println("pacer: " + file + ": " + e.getMessage());
                return PacerCommand.EXIT_BAD_INPUT;
            }
        }
        try (KubernetesClient client = kubeconfig.client()) {
            List<Preflight.NodeFacts> nodes = client.nodes().list().getItems().stream().map(node -> facts(client, node)).toList();
            boolean crds = !noMonitors && client.apiextensions().v1().customResourceDefinitions().withName("servicemonitors.monitoring.coreos.com").get() != null
                    && client.apiextensions().v1().customResourceDefinitions().withName("podmonitors.monitoring.coreos.com").get() != null;
            List<Preflight.Finding> findings = new ArrayList<>(Preflight.cluster(nodes, !noMonitors, crds));
            findings.forEach(f -> out.println(f));
            for (int i = 0; i < parsed.size(); i++) {
                BenchmarkRun run = parsed.get(i);
                Path file = runs.get(i);
                out.println(file + ":");
                List<Preflight.Finding> ofRun;
                try {
                    ofRun = Preflight.run(RunPlanner.plan(run), nodes);
                } catch (RunPlanner.InvalidPlanException e) {
                    e.problems().forEach(p -> err.println("pacer: " + file + ": " + p));
                    return PacerCommand.EXIT_BAD_INPUT;
                }
                ofRun.forEach(f -> out.println("  " + f));
                findings.addAll(ofRun);
            }
            long problems = findings.stream().filter(f -> f.level() == Preflight.Level.PROBLEM).count();
            out.println(problems == 0 ? "no problem found" : problems + " problem" + (problems == 1 ? "" : "s") + " found");
            return problems == 0 ? PacerCommand.EXIT_OK : PacerCommand.EXIT_VERDICT_NOT_PASSED;
        } catch (KubernetesClientException e) {
            err.println("pacer: reading the cluster: " + e.getMessage());
            return PacerCommand.EXIT_RUN_FAILED;
        }
    }

    /** A node as the API shows it, with its kubelet's CPU manager policy from {@code /configz} when it may be read. */
    static Preflight.NodeFacts facts(KubernetesClient client, Node node) {
        String name = node.getMetadata().getName();
        String policy = null;
        String unreadable = null;
        boolean fullPhysicalCpusOnly = false;
        try {
            String master = client.getMasterUrl().toString().replaceAll("/+$", "");
            JsonNode kubelet = JSON.readTree(FetchCommand.get(client, master + "/api/v1/nodes/" + name + "/proxy/configz")).path("kubeletconfig");
            JsonNode value = kubelet.path("cpuManagerPolicy");
            policy = value.isMissingNode() || value.asText().isEmpty() ? "none" : value.asText();   // the kubelet's default
            fullPhysicalCpusOnly = "true".equals(kubelet.path("cpuManagerPolicyOptions").path("full-pcpus-only").asText());
        } catch (IOException e) {
            unreadable = e.getMessage().contains("HTTP 403") ? "reading it needs get on nodes/proxy" : e.getMessage();
        }
        return Preflight.NodeFacts.of(node, policy, unreadable, fullPhysicalCpusOnly);
    }
}
