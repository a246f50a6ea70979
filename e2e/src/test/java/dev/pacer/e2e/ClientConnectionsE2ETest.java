package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.pacer.api.Verdict;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.report.ResultDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pacer's client at a connection count people use for many idle-heavy keep-alive connections, against nginx through
 * {@code pacer run}. nginx logs each request with its connection's serial number, so the test counts what the client
 * did from the server's side: which connections carried requests, and how many requests each.
 */
class ClientConnectionsE2ETest {
    @TempDir
    Path work;

    /**
     * 1,000 connections at 2,000 req/s in round robin: every request scheduled is sent and answered, the rate held, and
     * the server saw exactly 1,000 connections carry requests, each opened once and kept (a client that reconnected, or
     * opened a connection twice, shows more). No timing is asserted.
     */
    @Test
    void aThousandConnectionsInRoundRobinEachCarryRequestsEachOpenedOnce() throws IOException {
        List<String[]> lines = runAtAThousandConnections("connectionOrder: roundRobin, ");
        Set<String> serials = lines.stream().map(l -> l[0]).collect(Collectors.toSet());
        assertThat(serials).as("connections that carried requests: every one, each opened once, none reopened").hasSize(CONNECTIONS);
        assertThat(lines.stream().filter(l -> l[1].equals("1")).count()).as("one first request per connection").isEqualTo(CONNECTIONS);
    }

    /**
     * The same in the default order, last used first: every request answered, the rate held, and the requests carried
     * by fewer connections than were opened (the others stay idle: no burst at 2,000 req/s holds 1,000 requests on the
     * wire at once), none of them opened twice.
     */
    @Test
    void aThousandConnectionsLastUsedFirstCarryEveryRequestOnAFewNoneReopened() throws IOException {
        List<String[]> lines = runAtAThousandConnections("");
        Set<String> serials = lines.stream().map(l -> l[0]).collect(Collectors.toSet());
        assertThat(serials).as("connections that carried requests: a few of those opened, the others idle").isNotEmpty()
                .hasSizeLessThan(CONNECTIONS);
        assertThat(lines.stream().filter(l -> l[1].equals("1")).count()).as("one first request per connection that carried any, none reopened")
                .isEqualTo(serials.size());
    }

    private static final int CONNECTIONS = 1000;

    /** A run over 1,000 connections, every request answered; nginx's log lines, each a connection's serial and its request count. */
    private List<String[]> runAtAThousandConnections(String order) throws IOException {
        int connections = CONNECTIONS;
        int port = LocalRuns.freePort();
        Path accessLog = work.resolve("access.log");
        LocalNginx.writeConfig(work, port, 4096, " backlog=4096", """
                %s
                access_log %s connections;
                keepalive_requests 100000000;
                keepalive_timeout 300s;""".formatted(LocalNginx.CONNECTIONS_LOG_FORMAT, accessLog));
        LocalRuns.Outcome outcome = LocalRuns.run(work, "thousand", """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkRun
                metadata: {name: thousand}
                spec:
                  server:
                    image: nginx
                    command: %s
                    port: %d
                    measure: none
                    cpus: "1"
                  clients: {count: 1, rate: "2000", %sconnections: %d, cpus: "1"}
                  request: {path: /}
                  warmup: 3s
                  duration: 6s
                  timeout: 2m
                  criteria: {rateTolerance: 3%%, maxSendLagP99: 50ms}
                """.formatted(LocalNginx.COMMAND, port, order, connections));
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
        ResultDocument doc = outcome.document();
        assertThat(doc.result().verdict).as("held: %s", doc.result().reasons).isEqualTo(Verdict.Passed);
        LoadRunStatus client = doc.clientRuns().get("client-0");
        assertThat(client.unsent()).as("every request scheduled was sent").isZero();
        assertThat(client.sent()).isEqualTo(client.scheduled());
        assertThat(client.errors()).as("none failed").isZero();
        assertThat(client.completed()).as("every request sent was answered").isEqualTo(client.sent());

        List<String[]> lines = Files.readAllLines(accessLog).stream().map(l -> l.split(" ")).toList();
        assertThat(lines).as("the server answered each request the client counts").hasSize(client.completed().intValue());
        return lines;
    }
}
