package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpServer;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.contract.RunRequest;
import dev.pacer.engine.agents.AgentClient;
import org.junit.jupiter.api.Test;

/**
 * The load generator sends on connections it holds itself, outside Jetty's pool: against a server that closes a
 * connection after every few responses ({@code Connection: close}), each closed connection must be replaced and every
 * scheduled request still sent and answered, none failed and none left unsent.
 */
class ConnectionTurnoverE2ETest {
    static final int RATE = 400;
    static final int CLOSE_EVERY = 7;
    static final long PERIOD_MS = 1000;

    @Test
    void everyRequestIsAnsweredWhileTheServerClosesConnections() throws Exception {
        runAgainstAServerClosingConnections();
    }

    /**
     * The same on a machine whose CPUs are busy: a thread preempted in its write while the server's answer, closing the
     * connection, is read on another thread must not lose that connection (it used to, and the client then stopped
     * sending, its connections all closed and none replaced).
     */
    @Test
    void everyRequestIsAnsweredWhileTheServerClosesConnectionsOnABusyMachine() throws Exception {
        // the client's CPU (1) shared at a lower priority, the others (where the test's server runs) at the same
        try (Processes.BusyLoops hogs = Processes.busyLoopsOnEveryCpu(cpu -> cpu == 1 ? 10 : 0, 60)) {
            runAgainstAServerClosingConnections();
        }
    }

    private static void runAgainstAServerClosingConnections() throws Exception {
        AtomicLong served = new AtomicLong();
        AtomicLong closed = new AtomicLong();
        Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
        HttpServer server = Processes.jdkServer(exchange -> {
            clientPorts.add(exchange.getRemoteAddress().getPort());
            if (served.incrementAndGet() % CLOSE_EVERY == 0) {
                exchange.getResponseHeaders().set("Connection", "close");
                closed.incrementAndGet();
            }
            Processes.answerOk(exchange);
        });
        try (Processes.Started client = Processes.loadgen("1")) {
            AgentClient agent = client.agent();
            long warmupMs = 1000;
            long durationMs = 3000;
            int connections = 4;
            long startAt = Processes.armThenStart(agent, new RunRequest("http://127.0.0.1:" + server.getAddress().getPort(), RATE, connections, 0, null,
                    new RunRequest.HttpRequestSpec("GET", "/", null, null), warmupMs, durationMs, PERIOD_MS, 0, 0), PERIOD_MS);
            LoadRunStatus runStatus = Processes.awaitDone(agent, startAt + warmupMs + durationMs + 30_000);
            String seen = "server: " + served.get() + " answered, " + closed.get() + " connections closed, " + clientPorts.size()
                    + " client ports; client: " + runStatus;
            assertThat(runStatus.unsent()).as("requests never sent; %s", seen).isZero();
            assertThat(runStatus.errors()).as("requests failed; %s", seen).isZero();
            assertThat(runStatus.sent()).as(seen).isEqualTo(runStatus.scheduled());
            assertThat(runStatus.completed()).as("responses; %s", seen).isEqualTo(runStatus.scheduled());
            assertThat(served.get()).as("the server answered every request; %s", seen).isEqualTo(runStatus.scheduled());
            // every closed connection was replaced: with far more closed than the client holds, none of the requests
            // above could have gone out otherwise (client ports are not counted: a port is reused once its connection closed)
            assertThat(closed.get()).as(seen).isEqualTo(runStatus.scheduled() / CLOSE_EVERY).isGreaterThan(10L * connections);
        } finally {
            Processes.stop(server);
        }
    }

    /**
     * The server goes away for good in the middle of the window: the requests from then on fail as connection errors
     * (what a server gone is), the client does not wait for connections that cannot be opened, and the run ends on time.
     */
    @Test
    void aServerGoneShowsAsConnectionErrorsAndTheRunEndsOnTime() throws Exception {
        AtomicLong served = new AtomicLong();
        HttpServer server = Processes.jdkServer(exchange -> {
            served.incrementAndGet();
            Processes.answerOk(exchange);
        });
        try (Processes.Started client = Processes.loadgen("1")) {
            AgentClient agent = client.agent();
            long warmupMs = 1000;
            long durationMs = 4000;
            int connections = 4;
            long startAt = Processes.armThenStart(agent, new RunRequest("http://127.0.0.1:" + server.getAddress().getPort(), RATE, connections, 0, null,
                    new RunRequest.HttpRequestSpec("GET", "/", null, null), warmupMs, durationMs, PERIOD_MS, 0, 0), PERIOD_MS);
            long goneAt = startAt + warmupMs + 1000;
            while (System.currentTimeMillis() < goneAt) {
                Thread.sleep(10);
            }
            Processes.stop(server);   // its connections close; nothing listens on its port any more
            long servedBeforeGone = served.get();
            LoadRunStatus runStatus = Processes.awaitDone(agent, startAt + warmupMs + durationMs + 30_000);
            // what the server answered before it went reached the client (but the one request per connection it may
            // have been answering as it stopped); everything scheduled after is what this run measured against no server
            assertThat(servedBeforeGone).as("requests the server answered before it went").isPositive();
            assertThat(runStatus.completed()).as("responses before the server went")
                    .isBetween(servedBeforeGone - connections, servedBeforeGone);
            long neverAnswered = runStatus.scheduled() - runStatus.completed();
            assertThat(neverAnswered).as("requests scheduled after the server went").isPositive();
            // each fails as an error, at once, rather than waiting in the client (a request whose connection could not
            // be opened never reached the wire, so it counts in unsent too)
            assertThat(runStatus.errorsByKind().get("io") + runStatus.errorsByKind().get("timeout"))
                    .as("errors of the requests never answered (unsent: %d)", runStatus.unsent()).isEqualTo(neverAnswered);
            assertThat(runStatus.errorsByKind().get("timeout")).as("none waited for its timeout").isZero();
            // and the client says why: its causes count every request that got no response
            assertThat(runStatus.failureCauses()).as("causes").isNotEmpty();
            assertThat(runStatus.failureCauses().values().stream().mapToLong(Long::longValue).sum())
                    .as("requests counted by cause: %s", runStatus.failureCauses()).isEqualTo(neverAnswered);
        }
    }
}
