package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.report.ResultDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * nginx over h2c closing each connection after a few requests ({@code keepalive_requests}): its GOAWAY names the last
 * stream it processes, and the streams the client already sent past it are refused unprocessed. Through {@code pacer
 * run}, those requests go out once more and are answered, none fails, and the run says how many went out again: in
 * the client's status, in the result's figures and in a warning. nginx logs each request it answered with its
 * connection's serial, so the test counts from the server's side that each request was answered exactly once.
 */
class RefusedStreamsE2ETest {
    static final int REQUESTS_PER_CONNECTION = 50;

    @TempDir
    Path work;

    @Test
    void streamsAGoAwayRefusedGoOutAgainAreAnsweredOnceAndTheRunSaysHowMany() throws IOException {
        int port = LocalRuns.freePort();
        Path accessLog = work.resolve("access.log");
        LocalNginx.writeConfig(work, port, 1024, " http2", """
                %s
                access_log %s connections;
                keepalive_requests %d;""".formatted(LocalNginx.CONNECTIONS_LOG_FORMAT, accessLog, REQUESTS_PER_CONNECTION));
        // requests leave in bursts (5 ms between wake-ups), several streams at once on a connection: a burst that
        // crosses a connection's last request has streams past it on the wire when the GOAWAY comes
        LocalRuns.Outcome outcome = LocalRuns.run(work, "refused", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: refused}
                spec:
                  server:
                    image: nginx
                    command: %s
                    port: %d
                    measure: none
                    cpus: "1"
                  clients: {count: 1, rate: "1000", connections: 2, httpVersion: h2c, maxConcurrentStreams: 8,
                            minWakeupIntervalMicros: 5000, cpus: "1"}
                  request: {path: /}
                  warmup: 2s
                  duration: 4s
                  timeout: 2m
                  criteria: {rateTolerance: 3%%, maxSendLagP99: 50ms}
                """.formatted(LocalNginx.COMMAND, port));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        ResultDocument doc = outcome.document();
        LoadRunStatus client = doc.clientRuns().get("client-0");
        String seen = "client: " + client + "; reasons: " + doc.result().reasons + "; warnings: " + doc.result().warnings;

        assertThat(client.resent()).as("streams sent again after a GOAWAY; %s", seen).isPositive();
        assertThat(client.errors()).as("none failed; %s", seen).isZero();
        assertThat(client.unsent()).as(seen).isZero();
        assertThat(client.sent()).as("each counted once on the wire; %s", seen).isEqualTo(client.scheduled());
        assertThat(client.completed()).as("every request answered; %s", seen).isEqualTo(client.sent());

        List<String[]> lines = Files.readAllLines(accessLog).stream().map(l -> l.split(" ")).toList();
        assertThat(lines).as("the server answered each request once, none of those it refused").hasSize(client.completed().intValue());
        Map<String, Long> perConnection = lines.stream().collect(Collectors.groupingBy(l -> l[0], Collectors.counting()));
        assertThat(perConnection.values()).as("the server's limit held").allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(REQUESTS_PER_CONNECTION));

        RunResult result = doc.result();
        assertThat(result.verdict).as(seen).isEqualTo(Verdict.Passed);
        assertThat(result.clients.resentRequests).as("in the figures").isEqualTo(client.resent());
        assertThat(result.clients.perClient.getFirst().resentRequests).isEqualTo(client.resent());
        assertThat(result.warnings).as("and said").anySatisfy(w -> assertThat(w)
                .startsWith(String.format(Locale.ROOT, "client-0 sent requests again %,d times after the server refused them unprocessed", client.resent())));
    }
}
