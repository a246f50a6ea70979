package dev.pacer.operator.artifacts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpServer;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunStatus;
import dev.pacer.api.Phase;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.operator.metrics.RunMetricsTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The artifact store on a real directory, served by a real JDK HTTP server. */
class ArtifactStoreTest {
    static final Instant NOW = Instant.parse("2026-11-24T06:00:00Z");
    static final Map<String, String> FILES = Map.of("server.hlog", "#[StartTime: 1795000000.000 (seconds since epoch)]\n",
            "server.hgrm", "       Value     Percentile TotalCount 1/(1-Percentile)\n");

    @TempDir
    Path root;

    static BenchmarkRun finished(String name, String uid) throws IOException {
        BenchmarkRun run = RunMetricsTest.run(name, Phase.Succeeded);
        run.getMetadata().setUid(uid);
        run.getStatus().result = RunMetricsTest.result();
        return run;
    }

    static ResultDocument document(BenchmarkRun run) throws IOException {
        return ResultDocument.fromBenchmarkRun(run, "test");
    }

    @Test
    void aRunsResultsDirectoryIsKeptWholeAndReplacedWhenCollectedAgain() throws IOException {
        ArtifactStore store = new ArtifactStore(root, Duration.ofDays(30), "pacer-system/pacer-metrics:8080", Clock.fixed(NOW, ZoneOffset.UTC));
        BenchmarkRun run = finished("jetty12", "0b7c2a4e-1111-2222-3333-444455556666");
        BenchmarkRunStatus.Artifacts kept = store.keep(run, document(run), Map.of("server.hlog", "old", "client-0.responseTime.hlog", "x"));
        kept = store.keep(run, document(run), FILES);

        Path dir = root.resolve("bench/jetty12/0b7c2a4e-1111-2222-3333-444455556666");
        assertThat(kept.error).isNull();
        assertThat(kept.path).isEqualTo("bench/jetty12/0b7c2a4e-1111-2222-3333-444455556666");
        assertThat(kept.service).isEqualTo("pacer-system/pacer-metrics:8080");
        assertThat(kept.keptUntil).isEqualTo("2026-12-24T06:00:00Z");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
                    .containsExactly("report.html", "result.json", "server.hgrm", "server.hlog");
        }
        assertThat(kept.files).isEqualTo(4);
        long bytes = 0;
        for (Path p : ArtifactStore.listFiles(dir)) {
            bytes += Files.size(p);
        }
        assertThat(kept.bytes).isEqualTo(bytes);
        assertThat(Files.readString(dir.resolve("server.hlog"))).isEqualTo(FILES.get("server.hlog"));
        assertThat(ResultDocument.read(dir).result().server.p99IntegralMicros).isEqualTo(12_345L);
        try (var siblings = Files.list(dir.getParent())) {
            assertThat(siblings.toList()).as("no staging directory left").containsExactly(dir);
        }
    }

    @Test
    void aStoreThatCannotBeWrittenSaysWhyAndThrowsNothing() throws IOException {
        Path file = Files.writeString(root.resolve("not-a-directory"), "x");
        ArtifactStore store = new ArtifactStore(file, null, null, Clock.systemUTC());
        BenchmarkRun run = finished("jetty12", "uid-1");
        BenchmarkRunStatus.Artifacts kept = store.keep(run, document(run), FILES);
        assertThat(kept.error).startsWith("could not write " + file.resolve("bench/jetty12/uid-1"));
        assertThat(kept.files).isNull();
    }

    @Test
    void withoutRetentionResultsFollowTheirRunWithOneTheyExpire() throws IOException {
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        BenchmarkRun kept = finished("kept", "uid-kept");
        BenchmarkRun gone = finished("gone", "uid-gone");
        BenchmarkRun replaced = finished("kept", "uid-older");   // same name, an earlier run deleted since
        ArtifactStore followsRuns = new ArtifactStore(root, null, null, clock);
        for (BenchmarkRun run : List.of(kept, gone, replaced)) {
            followsRuns.keep(run, document(run), FILES);
        }
        assertThat(followsRuns.prune(List.of(kept))).containsExactlyInAnyOrder("bench/gone/uid-gone", "bench/kept/uid-older");
        assertThat(followsRuns.directory("bench", "kept", "uid-kept")).isPresent();

        ArtifactStore week = new ArtifactStore(root, Duration.ofDays(7), null, Clock.offset(Clock.systemUTC(), Duration.ofDays(8)));
        assertThat(week.prune(List.of(kept))).containsExactly("bench/kept/uid-kept");
        assertThat(week.directory("bench", "kept", "uid-kept")).isEmpty();
    }

    @Test
    void theHandlerListsAndServesARunsFilesAndNothingElse() throws Exception {
        ArtifactStore store = new ArtifactStore(root, null, null, Clock.systemUTC());
        BenchmarkRun run = finished("jetty12", "uid-1");
        store.keep(run, document(run), FILES);
        Files.writeString(root.resolve("secret.txt"), "outside any run");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", new ArtifactsHandler(store));
        server.start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            HttpResponse<String> index = http.send(HttpRequest.newBuilder(URI.create(base + "/artifacts/bench/jetty12/uid-1/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(index.body()).contains("{\"name\":\"server.hlog\",\"bytes\":" + FILES.get("server.hlog").length() + "}")
                    .contains("\"report.html\"").contains("\"result.json\"");
            HttpResponse<String> hlog = http.send(HttpRequest.newBuilder(URI.create(base + "/artifacts/bench/jetty12/uid-1/server.hlog")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(hlog.statusCode()).isEqualTo(200);
            assertThat(hlog.body()).isEqualTo(FILES.get("server.hlog"));
            for (String path : List.of("/artifacts/bench/jetty12/uid-2/", "/artifacts/bench/jetty12/uid-1/none.hlog",
                    "/artifacts/bench/jetty12/uid-1/..%2F..%2F..%2Fsecret.txt", "/artifacts/../secret.txt", "/secret.txt",
                    "/artifacts/bench/jetty12/uid-1/.hidden", "/artifacts/bench/jetty12/")) {
                HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(refused.statusCode()).as(path).isEqualTo(404);
                assertThat(refused.body()).as(path).doesNotContain("outside any run");
            }
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "/artifacts/bench/jetty12/uid-1/server.hlog"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
        } finally {
            server.stop(0);
        }
    }
}
