package dev.pacer.engine.suite;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.contract.AgentContract;

/**
 * What a finished run of a suite gave: whether it succeeded, and its result. The same from a BenchmarkRun's status
 * (the operator) and from a results directory ({@code pacer run}).
 *
 * @param succeeded the run reached Succeeded (its result exists); else {@code failure} says why
 */
public record SuiteOutcome(boolean succeeded, RunResult result, String failure) {

    /** A part of the clients' p99 at least this share of it carries it: the bound is that part's. */
    static final double CARRIES_P99 = 0.5;

    /** A server using at least this share of its CPUs on average at a failed rate was bound by its CPU. */
    static final double SERVER_CPU_BUSY = 0.9;

    /** What limited a rate of a sweep; {@code NONE} when it passed. The label is what the status and reports print. */
    public enum Bound {
        NONE(""),
        /** A client could not keep up: the rate is the client's limit, never the server's. */
        CLIENT("client"),
        /** The server used (nearly) all its CPUs while the rate failed. */
        SERVER_CPU("server CPU"),
        /** The clients' p99 went over the sweep's limit, carried by the server's part of it, its CPUs not all busy. */
        LATENCY_LIMIT("latency limit"),
        /**
         * The clients' p99 went over the sweep's limit, but neither the clients' own send lag nor the server's part
         * carries half of it: the time went between them (the network, the clients reading their responses). Not the
         * server's limit.
         */
        OUTSIDE_SERVER("latency outside the server"),
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

        /** The rate found is not the server's limit: the clients', or the time went outside the server. */
        public boolean notTheServers() {
            return bound == Bound.CLIENT || bound == Bound.OUTSIDE_SERVER;
        }
    }

    /**
     * Where the clients' p99 (from intended send time) went, window p99s each: the clients' own send lag, and the
     * server's part, the probe's residence (bytes arrived to last byte written: the socket's wait and the service) when
     * the probe measured, else the server's own series (the agent's processing or the probe's service). Percentiles do
     * not add: each share is that part's p99 over the clients', and the rest is what neither carries. The same three
     * per measured period, when the run has them for the same periods, say which part carried each period over a limit.
     *
     * @param serverPart what {@code serverP99Micros} is: residence, processing or service; null when the server is not measured
     * @param periods    each measured period's three p99s, in order; empty when the run does not have all three per period
     */
    public record P99Parts(long clientP99Micros, Long sendLagP99Micros, Long serverP99Micros, String serverPart, List<PeriodP99s> periods) {
        public double sendLagShare() {
            return share(sendLagP99Micros, clientP99Micros);
        }

        public double serverShare() {
            return share(serverP99Micros, clientP99Micros);
        }

        private static double share(Long micros, long ofMicros) {
            return micros == null || ofMicros <= 0 ? 0 : Math.min(1, micros / (double) ofMicros);
        }

        /** E.g. "send lag 20 % · server residence 15 % · between 65 %" (no comma: a CSV field as it is). */
        public String shares() {
            double lag = sendLagShare();
            String text = String.format(Locale.ROOT, "send lag %.0f %%", lag * 100);
            if (serverPart == null) {
                return text + " · server not measured";
            }
            double server = serverShare();
            return text + String.format(Locale.ROOT, " · server %s %.0f %% · between %.0f %%", serverPart, server * 100,
                    Math.max(0, 1 - lag - server) * 100);
        }

        /** The window's shares, then, when known, which part carried each period over the limit: "…; 4 of 15 periods over 10.000 ms: send lag 1 · server residence 3 · between 0". */
        public String shares(Duration limit) {
            return shares() + carriers(limit).map(c -> "; " + c.describe(serverPart)).orElse("");
        }

        /** Which part carried each period whose clients' p99 is over the limit; empty without the three p99s per period. */
        public Optional<PeriodCarriers> carriers(Duration limit) {
            if (periods.isEmpty() || serverPart == null) {
                return Optional.empty();
            }
            long limitMicros = limit.toNanos() / 1000;
            int over = 0, lag = 0, server = 0;
            for (PeriodP99s period : periods) {
                if (period.clientMicros() <= limitMicros) {
                    continue;
                }
                over++;
                if (share(period.sendLagMicros(), period.clientMicros()) >= CARRIES_P99) {
                    lag++;
                } else if (share(period.serverMicros(), period.clientMicros()) >= CARRIES_P99) {
                    server++;
                }
            }
            return Optional.of(new PeriodCarriers(periods.size(), over, lag, server, over - lag - server, limit));
        }

        String describe() {
            return String.format(Locale.ROOT, "of the clients' p99 %.3f ms: their send lag p99 %s, the server's %s p99 %s (%s)",
                    clientP99Micros / 1000.0, ms(sendLagP99Micros), serverPart == null ? "time" : serverPart, ms(serverP99Micros), shares());
        }

        private static String ms(Long micros) {
            return micros == null ? "unknown" : String.format(Locale.ROOT, "%.3f ms", micros / 1000.0);
        }
    }

    /** One measured period's p99s: the clients' (all responses of the period), their worst send lag, the server's part. */
    public record PeriodP99s(long clientMicros, long sendLagMicros, long serverMicros) {
    }

    /**
     * Of the measured periods, those whose clients' p99 was over the limit, and which part carried each: the clients'
     * send lag, the server's part, or neither (the time went between them).
     */
    public record PeriodCarriers(int periods, int over, int sendLag, int server, int between, Duration limit) {
        /**
         * Whose the periods over the limit are: the server's only when its part carried more of them than either other
         * part and at least half; else the clients' when their lag carried at least as many as went between; else neither's.
         */
        Bound bound() {
            if (server > sendLag && server > between && 2 * server >= over) {
                return Bound.LATENCY_LIMIT;
            }
            return sendLag > 0 && sendLag >= between ? Bound.CLIENT : Bound.OUTSIDE_SERVER;
        }

        String describe(String serverPart) {
            return String.format(Locale.ROOT, "%d of %d periods over %.3f ms: send lag %d · server %s %d · between %d",
                    over, periods, limit.toNanos() / 1e6, sendLag, serverPart, server, between);
        }
    }

    /** The parts of the clients' p99, when the run measured it; per period too when the run has the three for the same periods. */
    public Optional<P99Parts> p99Parts() {
        if (!succeeded || result.clients == null || result.clients.p99Micros == null) {
            return Optional.empty();
        }
        RunResult.ServerFigures server = result.server;
        Long serverP99 = null;
        List<Long> serverPeriods = null;
        String part = null;
        if (server != null && server.otherSeries != null) {
            Optional<RunResult.SeriesFigures> residence = server.otherSeries.stream()
                    .filter(x -> x.name != null && x.name.endsWith(AgentContract.SERIES_RESIDENCE) && x.p99Micros != null).findFirst();
            if (residence.isPresent()) {
                serverP99 = residence.get().p99Micros;
                serverPeriods = residence.get().periodP99Micros;
                part = AgentContract.SERIES_RESIDENCE;
            }
        }
        if (part == null && server != null && server.p99Micros != null) {
            serverP99 = server.p99Micros;
            serverPeriods = server.periodP99Micros;
            part = server.series;
        }
        return Optional.of(new P99Parts(result.clients.p99Micros, result.clients.sendLagP99Micros, serverP99, part,
                periods(result.clients.periodP99Micros, result.clients.periodSendLagP99Micros, serverPeriods)));
    }

    /** The three p99s per period, when each list has one for every period; else none (they would not be of the same periods). */
    private static List<PeriodP99s> periods(List<Long> client, List<Long> sendLag, List<Long> server) {
        if (client == null || sendLag == null || server == null || client.isEmpty()
                || sendLag.size() != client.size() || server.size() != client.size()) {
            return List.of();
        }
        List<PeriodP99s> periods = new ArrayList<>();
        for (int i = 0; i < client.size(); i++) {
            periods.add(new PeriodP99s(client.get(i), sendLag.get(i), server.get(i)));
        }
        return periods;
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
            String over = String.format(Locale.ROOT, "client p99 %.3f ms above %.3f ms", clients.p99Micros / 1000.0, maxClientP99.toNanos() / 1e6);
            if (slow != null) {
                return new Judgement(slow, over);
            }
            return latencyBound(over, p99Parts().orElseThrow(), maxClientP99);
        }
        return new Judgement(Bound.NONE, null);
    }

    /**
     * Whose a p99 over the limit is, from its parts: per period when the run has them (which part carried each period
     * over the limit, {@link PeriodCarriers#bound}), else over the window: the clients' when their own send lag carries
     * it, the server's when its part does (or when it is not measured), else neither's.
     */
    private static Judgement latencyBound(String over, P99Parts parts, Duration limit) {
        Optional<PeriodCarriers> carriers = parts.carriers(limit).filter(c -> c.over() > 0);
        if (carriers.isPresent()) {
            PeriodCarriers c = carriers.get();
            String perPeriod = c.describe(parts.serverPart()) + "; over the window, " + parts.describe();
            return switch (c.bound()) {
                case CLIENT -> new Judgement(Bound.CLIENT, "client-bound: " + over + ", carried by the clients' own send lag in most periods: " + perPeriod);
                case LATENCY_LIMIT -> new Judgement(Bound.LATENCY_LIMIT, over + ", carried by the server in most periods: " + perPeriod);
                default -> new Judgement(Bound.OUTSIDE_SERVER, over + ", carried neither by the clients' send lag nor by the server in most periods: " + perPeriod);
            };
        }
        if (parts.sendLagShare() >= CARRIES_P99) {
            return new Judgement(Bound.CLIENT, "client-bound: " + over + ", carried by the clients' own send lag " + parts.describe());
        }
        if (parts.serverPart() == null || parts.serverShare() >= CARRIES_P99) {
            return new Judgement(Bound.LATENCY_LIMIT, over + (parts.serverPart() == null ? "" : ", carried by the server " + parts.describe()));
        }
        return new Judgement(Bound.OUTSIDE_SERVER, over + ", carried neither by the clients' send lag nor by the server " + parts.describe());
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
