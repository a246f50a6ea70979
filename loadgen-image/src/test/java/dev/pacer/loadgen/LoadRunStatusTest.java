package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.sun.net.httpserver.HttpServer;
import dev.pacer.contract.ContractJson;
import dev.pacer.contract.LoadRunStatus;
import org.junit.jupiter.api.Test;

/**
 * What a client's {@code GET /pacer/v1/run} says of its rate: the rate asked for, and the rate its schedule offers now,
 * which grows during a ramp. A real agent on loopback, driving a real (JDK) HTTP server.
 */
class LoadRunStatusTest {
    private static final int RATE = 50;
    private static final long RAMP_MS = 10_000;

    @Test
    void theOfferedRateGrowsDuringTheRampAndIsTheRateAskedForOutsideIt() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        server.start();
        HttpClient http = HttpClient.newHttpClient();
        try (LoadGeneratorAgent agent = new LoadGeneratorAgent(0)) {
            String admin = "http://127.0.0.1:" + agent.adminPort() + "/pacer/v1/run";
            String request = """
                    {"targetUrl":"http://127.0.0.1:%d","ratePerSecond":%d,"connections":2,"request":{"path":"/"},
                     "warmupMs":%d,"durationMs":1000,"startAtEpochMs":0,"rampUpMs":%d}""".formatted(
                    server.getAddress().getPort(), RATE, RAMP_MS, RAMP_MS);
            assertThat(post(http, admin, request)).isBetween(200, 299);
            LoadRunStatus armed = waitFor(http, admin, LoadRunStatus.State.ARMED);
            assertThat(armed.offeredRate()).as("armed: the rate asked for").isEqualTo((double) RATE);

            assertThat(post(http, admin + "/start", "{\"startAtEpochMs\":" + (System.currentTimeMillis() + 300) + "}")).isBetween(200, 299);
            LoadRunStatus ramping = waitFor(http, admin, LoadRunStatus.State.WARMUP);
            assertThat(ramping.requestedRate()).isEqualTo(RATE);
            assertThat(ramping.offeredRate()).as("within the %d ms ramp", RAMP_MS).isGreaterThanOrEqualTo(0.0).isLessThan((double) RATE);

            LoadRunStatus done = waitFor(http, admin, LoadRunStatus.State.DONE);
            assertThat(done.offeredRate()).as("done: the rate asked for").isEqualTo((double) RATE);
            assertThat(done.completed()).isPositive();
        } finally {
            server.stop(0);
        }
    }

    private static int post(HttpClient http, String uri, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** Its status once it reached the state (polled; the run's own times bound the wait). */
    private static LoadRunStatus waitFor(HttpClient http, String uri, LoadRunStatus.State state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            String body = http.send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString()).body();
            LoadRunStatus status = ContractJson.MAPPER.readValue(body, LoadRunStatus.class);
            if (status.state() == state) {
                return status;
            }
            assertThat(System.nanoTime()).as("%s reached, last %s", state, status.state()).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
