package dev.pacer.engine.suite;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;

/**
 * What a finished run of a suite gave: whether it succeeded, and its result. The same from a BenchmarkRun's status
 * (the operator) and from a results directory ({@code pacer run}).
 *
 * @param succeeded the run reached Succeeded (its result exists); else {@code failure} says why
 */
public record SuiteOutcome(boolean succeeded, RunResult result, String failure) {

    /** A server using at least this share of its CPUs on average at a failed rate was bound by its CPU. */
    static final double SERVER_CPU_BUSY = 0.9;

    /** What limited a rate of a sweep; {@code NONE} when it passed. The label is what the status and reports print. */
    public enum Bound {
        NONE(""),
        /** A client could not keep up: the rate is the client's limit, never the server's. */
        CLIENT("client"),
        /** The server used (nearly) all its CPUs while the rate failed. */
        SERVER_CPU("server CPU"),
        /** The clients' p99 went over the sweep's limit, the server's CPUs not all busy. */
        LATENCY_LIMIT("latency limit"),
        /** Requests failed. */
        ERRORS("errors"),
        /** The clients sent on time, but fewer responses came back than were asked for. */
        RATE_NOT_ANSWERED("rate not answered"),
        /** The measurement cannot be trusted for another reason (e.g. no server histograms). */
        INVALID("invalid measurement"),
        /** The run did not reach Succeeded. */
        RUN_FAILED("run failed");

        public final String label;

        Bound(String label) {
            this.label = label;
        }
    }

    /** A rate's judgement: passed ({@link Bound#NONE}), or what bound it and why. */
    public record Judgement(Bound bound, String why) {
        public boolean passed() {
            return bound == Bound.NONE;
        }
    }

    public static SuiteOutcome of(RunResult result) {
        return new SuiteOutcome(true, result, null);
    }

    public static SuiteOutcome failed(String why) {
        return new SuiteOutcome(false, null, why);
    }

    /**
     * Whether this rate passes a sweep's criteria, and if not, what bound it. A rate passes when the run succeeded with a
     * verdict other than Invalid, every client held its rate within the tolerance, no request failed, and the clients'
     * p99 (from intended send time) is below the limit. A run whose clients could not keep up is client-bound whatever
     * else it shows: its figures are the client's.
     * A failed rate at which the server's CPUs were busy (its footprint) is bound by the server's CPU.
     */
    public Judgement judge(Duration maxClientP99, double rateTolerance) {
        if (!succeeded) {
            return new Judgement(Bound.RUN_FAILED, "the run failed: " + failure);
        }
        if (Boolean.TRUE.equals(result.clientBound)) {
            return new Judgement(Bound.CLIENT, "client-bound: " + firstReason());
        }
        RunResult.ClientFigures clients = result.clients;
        if (clients == null || clients.p99Micros == null) {
            return new Judgement(Bound.INVALID, "no client response time was measured");
        }
        Bound slow = serverCpuBusy() ? Bound.SERVER_CPU : null;
        for (RunResult.ClientFigure client : clients.perClient) {
            if (client.offeredRate != null && client.achievedRate != null && client.achievedRate < client.offeredRate * (1 - rateTolerance)) {
                return new Judgement(slow == null ? Bound.RATE_NOT_ANSWERED : slow,
                        String.format(Locale.ROOT, "%s achieved %.0f of %.0f req/s", client.name, client.achievedRate, client.offeredRate));
            }
        }
        if (result.verdict == Verdict.Invalid) {
            return new Judgement(Bound.INVALID, "the run is Invalid: " + firstReason());
        }
        if (clients.errors != null && clients.errors > 0) {
            return new Judgement(Bound.ERRORS, clients.errors + " requests failed");
        }
        if (clients.p99Micros > maxClientP99.toNanos() / 1000) {
            return new Judgement(slow == null ? Bound.LATENCY_LIMIT : slow, String.format(Locale.ROOT, "client p99 %.3f ms above %.3f ms",
                    clients.p99Micros / 1000.0, maxClientP99.toNanos() / 1e6));
        }
        return new Judgement(Bound.NONE, null);
    }

    public Optional<String> whyNotPassed(Duration maxClientP99, double rateTolerance) {
        return Optional.ofNullable(judge(maxClientP99, rateTolerance).why());
    }

    public boolean passes(Duration maxClientP99, double rateTolerance) {
        return judge(maxClientP99, rateTolerance).passed();
    }

    private boolean serverCpuBusy() {
        RunResult.Footprint footprint = result.server == null ? null : result.server.footprint;
        return footprint != null && (footprint.cpuUtilization != null && footprint.cpuUtilization >= SERVER_CPU_BUSY
                || footprint.saturatedPeriods != null && footprint.saturatedPeriods > 0);
    }

    private String firstReason() {
        return result.reasons.isEmpty() ? "(no reason given)" : result.reasons.getFirst();
    }
}
