package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.engine.report.ResultsDirectory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code pacer fetch NAME}: a finished BenchmarkRun's kept artifacts ({@code status.artifacts}), downloaded through the
 * API server's service proxy into a results directory like a local run's. Needs {@code get} on the BenchmarkRun and
 * on {@code services/proxy} of the operator's Service.
 */
@Command(name = "fetch", description = "Download a finished BenchmarkRun's results (raw .hlog, .hgrm, result.json, report.html) "
        + "from the operator's artifact store into a results directory.")
final class FetchCommand implements Callable<Integer> {
    static final long TIMEOUT_SECONDS = 60;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", paramLabel = "NAME", description = "The BenchmarkRun.")
    String name;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", description = "Its namespace (default: the kubeconfig context's).")
    String namespace;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "Results directory (default: runs/<name>).")
    Path output;

    @CommandLine.Mixin
    KubeconfigOption kubeconfig;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (KubernetesClient client = kubeconfig.client()) {
            String ns = namespace != null ? namespace : client.getNamespace() != null ? client.getNamespace() : "default";
            BenchmarkRun run = client.resources(BenchmarkRun.class).inNamespace(ns).withName(name).get();
            if (run == null) {
                err.println("pacer: no BenchmarkRun " + ns + "/" + name + " (kubectl get br -n " + ns + " lists them)");
                return PacerCommand.EXIT_BAD_INPUT;
            }
            BenchmarkRunStatus.Artifacts kept = run.getStatus() == null ? null : run.getStatus().artifacts;
            String phase = run.getStatus() == null ? null : String.valueOf(run.getStatus().phase);
            if (kept == null) {
                err.println("pacer: BenchmarkRun " + ns + "/" + name + " has no status.artifacts"
                        + ("Succeeded".equals(phase) ? ": the operator keeps none (the chart's artifacts.enabled)"
                        : " (phase " + phase + "): only a run that Succeeded has artifacts"));
                return PacerCommand.EXIT_BAD_INPUT;
            }
            if (kept.error != null || kept.service == null) {
                err.println("pacer: BenchmarkRun " + ns + "/" + name + ": "
                        + (kept.error != null ? "its artifacts were not kept: " + kept.error
                        : "no Service serves its artifacts (kept in " + kept.path + " of the operator's store)"));
                return PacerCommand.EXIT_BAD_INPUT;
            }
            Path directory = output != null ? output : Path.of("runs", name);
            fetch(client, kept, directory, out);
            return PacerCommand.EXIT_OK;
        } catch (IOException | KubernetesClientException e) {
            err.println("pacer: fetching " + name + ": " + e.getMessage());
            return PacerCommand.EXIT_RUN_FAILED;
        }
    }

    /** The store's index, then each file, each checked against the size the index gives. */
    static void fetch(KubernetesClient client, BenchmarkRunStatus.Artifacts kept, Path directory, PrintWriter out) throws IOException {
        String base = proxyUrl(client, kept.service) + "/artifacts/" + kept.path + "/";
        JsonNode index = JSON.readTree(get(client, base));
        List<JsonNode> files = new ArrayList<>();
        index.path("files").forEach(files::add);
        if (files.isEmpty()) {
            throw new IOException(base + " lists no files");
        }
        Files.createDirectories(directory);
        long total = 0;
        int done = 0;
        for (JsonNode file : files) {
            String fileName = ResultsDirectory.checkedName(file.path("name").asText());
            byte[] body = get(client, base + fileName);
            if (body.length != file.path("bytes").asLong()) {
                throw new IOException(fileName + ": " + body.length + " bytes received, the store lists " + file.path("bytes").asLong());
            }
            Files.write(directory.resolve(fileName), body);
            total += body.length;
            done++;
            out.printf(Locale.ROOT, "  %-40s %,12d bytes  (%d/%d)%n", fileName, body.length, done, files.size());
            out.flush();
        }
        ResultDocument.read(directory);   // a whole results directory, as pacer report and compare read it
        out.printf(Locale.ROOT, "fetched %d files (%,d bytes) of %s into %s%nreport:  %s%n", done, total, kept.path, directory,
                directory.resolve("report.html"));
    }

    /** {@code NAMESPACE/NAME:PORT} → the API server's proxy to that Service. */
    static String proxyUrl(KubernetesClient client, String service) throws IOException {
        Matcher m = Pattern.compile("([a-z0-9-]+)/([a-z0-9-]+):([0-9]+)").matcher(service);
        if (!m.matches()) {
            throw new IOException("status.artifacts.service '" + service + "' is not NAMESPACE/NAME:PORT");
        }
        String master = client.getMasterUrl().toString().replaceAll("/+$", "");
        return master + "/api/v1/namespaces/" + m.group(1) + "/services/" + m.group(2) + ":" + m.group(3) + "/proxy";
    }

    static byte[] get(KubernetesClient client, String url) throws IOException {
        try {
            HttpResponse<byte[]> response = client.getHttpClient()
                    .sendAsync(client.getHttpClient().newHttpRequestBuilder().uri(url).build(), byte[].class)
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (response.code() != 200) {
                String body = response.body() == null ? "" : new String(response.body(), StandardCharsets.UTF_8).strip();
                throw new IOException("GET " + url + ": HTTP " + response.code()
                        + (response.code() == 403 ? " (fetching needs get on services/proxy in the operator's namespace)" : "")
                        + (body.isEmpty() ? "" : ": " + body.lines().findFirst().orElse("")));
            }
            return response.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IOException("GET " + url + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("GET " + url + ": no answer within " + TIMEOUT_SECONDS + " s", e);
        }
    }
}
