package dev.pacer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import dev.pacer.api.RunResult;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every server under modest load records its own processing time, and it is the server's, not the client's. */
class ServersUnderLoadE2ETest {
    @TempDir
    Path work;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "pacer/server-jetty12:0.1.0, --mode=core",
            "pacer/server-jetty12:0.1.0, --mode=ee10",
            "pacer/server-jetty12-ee9:0.1.0, --mode=ee9",
            "pacer/server-jetty11:0.1.0, --mode=servlet",
            "pacer/server-loom:0.1.0, --mode=virtual-threads",
            "pacer/server-netty:0.1.0, --mode=epoll",
            "pacer/server-vertx:0.1.0, --mode=defaults",
            "pacer/server-helidon:0.1.0, --mode=virtual-threads"})
    void twoMillisecondsOfWorkShowAsTwoMillisecondsOnTheServer(String image, String args) throws Exception {
        LocalRuns.Outcome sleeping = LocalRuns.run(work, "sleep", LocalRuns.spec("sleep", image, args, "200", "/?sleepMicros=2000", "5s", "3s"));
        assertThat(sleeping.err()).isEmpty();
        RunResult.ServerFigures server = sleeping.document().result().server;
        assertThat(server.histogramsAvailable).isTrue();
        assertThat(server.samples).isEqualTo(3);
        RunResult.ClientFigures clients = sleeping.document().result().clients;
        // what the server did, from this run's own figures: every request the clients had answered, each at least the
        // 2 ms it slept (a sleep never ends early), and no more than what the clients saw of it
        assertThat(server.requests).as("the server's count vs the clients' %d", clients.requests)
                .isCloseTo(clients.requests, Percentage.withPercentage(2));
        assertThat(server.p50Micros).as("server p50 with 2 ms of work").isGreaterThanOrEqualTo(2_000L)
                .isLessThanOrEqualTo(clients.p50Micros);

        LocalRuns.Outcome idle = LocalRuns.run(work, "idle", LocalRuns.spec("idle", image, args, "200", "/plaintext", "2s", "3s"));
        RunResult result = idle.document().result();
        // the server's own time is part of what the client sees; with pacer's own pacing loop the client adds little
        // (ee10 at 200 req/s: server 329 µs, client 604 µs), so half the client's figure is no longer a safe bound
        assertThat(result.server.p50Micros).as("server p50 without work, vs client p50 %d µs", result.clients.p50Micros)
                .isLessThan(result.clients.p50Micros);
        assertThat(result.server.p99IntegralMicros).isPositive();
    }

    @Test
    void jetty12AnswersTheLoadGeneratorOverH2c() throws Exception {
        String spec = LocalRuns.spec("h2c", "jetty12", "--mode=core", "200", "/plaintext", "2s", "3s")
                .replace("connections: 4,", "connections: 4, httpVersion: h2c,");
        LocalRuns.Outcome outcome = LocalRuns.run(work, "h2c", spec);
        RunResult result = outcome.document().result();
        assertThat(result.clients.errors).isZero();
        assertThat(result.clients.requests).isPositive();
        // a request at a period edge can be counted by the server in one period and by the client in the next
        assertThat(result.server.requests).isCloseTo(result.clients.requests, Percentage.withPercentage(2));
    }
}
