package dev.pacer.engine.suite;

import java.time.Duration;
import java.util.Optional;

import dev.pacer.api.RunResult;

/**
 * What a finished run of a suite gave: whether it succeeded, and its result. The same from a BenchmarkRun's status
 * (the operator) and from a results directory ({@code pacer run}).
 *
 * @param succeeded the run reached Succeeded (its result exists); else {@code failure} says why
 */
public record SuiteOutcome(boolean succeeded, RunResult result, String failure) {

    public static SuiteOutcome of(RunResult result) {
        return new SuiteOutcome(true, result, null);
    }

    public static SuiteOutcome failed(String why) {
        return new SuiteOutcome(false, null, why);
    }

    /**
     * Why this rate does not pass a sweep's criteria, or empty when it does: the run succeeded, every client held its
     * rate within the tolerance, no request failed, and the clients' p99 (from intended send time) is below the limit.
     */
    public Optional<String> whyNotPassed(Duration maxClientP99, double rateTolerance) {
        if (!succeeded) {
            return Optional.of("the run failed: " + failure);
        }
        RunResult.ClientFigures clients = result.clients;
        if (clients == null || clients.p99Micros == null) {
            return Optional.of("no client response time was measured");
        }
        for (RunResult.ClientFigure client : clients.perClient) {
            if (client.offeredRate != null && client.achievedRate != null && client.achievedRate < client.offeredRate * (1 - rateTolerance)) {
                return Optional.of(String.format(java.util.Locale.ROOT, "%s achieved %.0f of %.0f req/s", client.name, client.achievedRate, client.offeredRate));
            }
        }
        if (clients.errors != null && clients.errors > 0) {
            return Optional.of(clients.errors + " requests failed");
        }
        if (clients.p99Micros > maxClientP99.toNanos() / 1000) {
            return Optional.of(String.format(java.util.Locale.ROOT, "client p99 %.3f ms above %.3f ms", clients.p99Micros / 1000.0,
                    maxClientP99.toNanos() / 1e6));
        }
        return Optional.empty();
    }

    public boolean passes(Duration maxClientP99, double rateTolerance) {
        return whyNotPassed(maxClientP99, rateTolerance).isEmpty();
    }
}
