package dev.pacer.engine.analysis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRunValidation;
import dev.pacer.api.Measure;
import dev.pacer.contract.ResourceUse;

/**
 * Everything the analysis needs, already collected: the measured window, every agent's periods, the clients' own
 * counters and the criteria (parsed).
 *
 * @param windowStartEpochMs start of the measured window (warm-up excluded)
 * @param windowEndEpochMs   end of the measured window
 * @param samplePeriodMs     length of a full period
 * @param serverPeriods      the server's processing-time periods; empty when the server exposes no histograms
 * @param serverUnavailableReason why there are no server periods, when there are none
 * @param clients            one entry per client
 * @param criteria           thresholds of the verdict
 * @param serverMeasure      how the server was measured, and its other series
 * @param serverResources    what the server process used per period, for its footprint
 */
public record AnalysisInput(long windowStartEpochMs, long windowEndEpochMs, long samplePeriodMs,
                            Optional<List<PeriodHistogram>> serverPeriods, String serverUnavailableReason,
                            List<ClientInput> clients, Criteria criteria, ServerMeasure serverMeasure,
                            ServerResources serverResources) {

    public AnalysisInput(long windowStartEpochMs, long windowEndEpochMs, long samplePeriodMs,
                         Optional<List<PeriodHistogram>> serverPeriods, String serverUnavailableReason,
                         List<ClientInput> clients, Criteria criteria, ServerMeasure serverMeasure) {
        this(windowStartEpochMs, windowEndEpochMs, samplePeriodMs, serverPeriods, serverUnavailableReason, clients, criteria,
                serverMeasure, ServerResources.NONE);
    }

    /** The same with the server's resource samples. */
    public AnalysisInput withResources(ServerResources resources) {
        return new AnalysisInput(windowStartEpochMs, windowEndEpochMs, samplePeriodMs, serverPeriods, serverUnavailableReason,
                clients, criteria, serverMeasure, resources);
    }

    /**
     * The kernel probe's counters at collection (docs/probe.md, "Nothing lost silently"): over its whole run, and per
     * sample period when the probe gives them.
     *
     * @param droppedRecords          requests the kernel side could not pass on
     * @param lateRecords             requests that reached the probe after their period closed
     * @param abandonedRequests       requests read and never answered
     * @param orphanWrites            writes with no request being read
     * @param neverReadRequests       requests that arrived and were never read before their connection closed
     * @param readAfterPeerClosed requests read after the client had closed its side
     * @param byPeriod                the periods that had any of these, by their start; {@code null} from a probe that
     *                                counts only over its whole run
     */
    public record ProbeLosses(long droppedRecords, long lateRecords, long abandonedRequests, long orphanWrites,
                              long neverReadRequests, long readAfterPeerClosed, List<ProbeLosses.Period> byPeriod) {
        /** Counts over the whole run alone. */
        public ProbeLosses(long droppedRecords, long lateRecords, long abandonedRequests, long orphanWrites) {
            this(droppedRecords, lateRecords, abandonedRequests, orphanWrites, 0, 0, null);
        }

        /** One period's counts, the period named by its start. */
        public record Period(long startEpochMs, long droppedRecords, long lateRecords, long abandonedRequests, long orphanWrites,
                             long neverReadRequests, long readAfterPeerClosed) {
        }

        /** Requests missing from the probe's histograms. */
        public long missing() {
            return droppedRecords + lateRecords;
        }

        /** The periods starting in [fromEpochMs, toEpochMs) summed, with those periods; itself when it has no periods. */
        public ProbeLosses within(long fromEpochMs, long toEpochMs) {
            if (byPeriod == null) {
                return this;
            }
            List<Period> in = byPeriod.stream().filter(p -> p.startEpochMs() >= fromEpochMs && p.startEpochMs() < toEpochMs).toList();
            return new ProbeLosses(in.stream().mapToLong(Period::droppedRecords).sum(), in.stream().mapToLong(Period::lateRecords).sum(),
                    in.stream().mapToLong(Period::abandonedRequests).sum(), in.stream().mapToLong(Period::orphanWrites).sum(),
                    in.stream().mapToLong(Period::neverReadRequests).sum(), in.stream().mapToLong(Period::readAfterPeerClosed).sum(), in);
        }
    }

    /**
     * What the server process used, per period.
     *
     * @param use              the samples, or {@code null} when nothing sampled the process
     * @param loadStartEpochMs when the load began (the warm-up's start): the idle figures are before it
     * @param unavailable      why there are no samples, when there are none
     */
    public record ServerResources(ResourceUse use, long loadStartEpochMs, String unavailable) {
        public static final ServerResources NONE = new ServerResources(null, 0, "nothing sampled the server process");
    }

    public AnalysisInput(long windowStartEpochMs, long windowEndEpochMs, long samplePeriodMs,
                         Optional<List<PeriodHistogram>> serverPeriods, String serverUnavailableReason,
                         List<ClientInput> clients, Criteria criteria) {
        this(windowStartEpochMs, windowEndEpochMs, samplePeriodMs, serverPeriods, serverUnavailableReason, clients, criteria,
                ServerMeasure.AGENT);
    }

    /**
     * How the server was measured and its series beyond the main one.
     *
     * @param measuredBy  {@code spec.server.measure}
     * @param series      the name of {@link #serverPeriods()}' series: processing (agent) or service (probe)
     * @param otherSeries further series of the server by name ({@code residence}, {@code probe.service}, …), in order
     * @param probeLosses what the kernel probe could not time, when it measured; {@code null} otherwise
     */
    public record ServerMeasure(Measure measuredBy, String series, Map<String, List<PeriodHistogram>> otherSeries,
                                ProbeLosses probeLosses) {
        public static final ServerMeasure AGENT = new ServerMeasure(Measure.AGENT, "processing", Map.of(), null);

        /** Nobody measured the server: its histograms are missing by choice, not by failure. */
        public boolean none() {
            return measuredBy == Measure.NONE;
        }
    }

    /**
     * @param name                 e.g. {@code client-0}
     * @param offeredRatePerSecond what the client offered (its report)
     * @param responseTimePeriods  response time from the intended send time
     * @param sendLagPeriods       actual minus intended send time
     * @param errors               failed requests and 4xx/5xx responses over the run
     * @param failure              the client's own failure, if it reported one
     * @param unsentRequests       scheduled requests the client never sent (it fell behind and was stopped)
     * @param uncorrectedPeriods   response time from the actual send time; empty when the client does not keep it
     * @param resources            what the client process used per period, or {@code null} when it does not say
     * @param resentRequests       times it sent a request once more after the server refused it unprocessed (HTTP/2 GOAWAY)
     * @param failureCauses        its requests that got no response, by cause, most frequent first; empty when none or unsaid
     */
    public record ClientInput(String name, double offeredRatePerSecond, List<PeriodHistogram> responseTimePeriods,
                              List<PeriodHistogram> sendLagPeriods, long errors, String failure, long unsentRequests,
                              List<PeriodHistogram> uncorrectedPeriods, ResourceUse resources, long resentRequests,
                              Map<String, Long> failureCauses) {
        public ClientInput {
            failureCauses = failureCauses == null ? Map.of() : failureCauses;
        }

        public ClientInput(String name, double offeredRatePerSecond, List<PeriodHistogram> responseTimePeriods,
                           List<PeriodHistogram> sendLagPeriods, long errors, String failure, long unsentRequests,
                           List<PeriodHistogram> uncorrectedPeriods, ResourceUse resources) {
            this(name, offeredRatePerSecond, responseTimePeriods, sendLagPeriods, errors, failure, unsentRequests, uncorrectedPeriods, resources,
                    0, Map.of());
        }

        public ClientInput(String name, double offeredRatePerSecond, List<PeriodHistogram> responseTimePeriods,
                           List<PeriodHistogram> sendLagPeriods, long errors, String failure, long unsentRequests,
                           List<PeriodHistogram> uncorrectedPeriods) {
            this(name, offeredRatePerSecond, responseTimePeriods, sendLagPeriods, errors, failure, unsentRequests, uncorrectedPeriods, null);
        }

        public ClientInput(String name, double offeredRatePerSecond, List<PeriodHistogram> responseTimePeriods,
                           List<PeriodHistogram> sendLagPeriods, long errors, String failure) {
            this(name, offeredRatePerSecond, responseTimePeriods, sendLagPeriods, errors, failure, 0, List.of());
        }
    }

    /**
     * @param rateTolerance maximum shortfall of achieved vs offered rate, as a ratio (0.01 = 1 %)
     * @param maxSendLagP99 a client whose send lag P99 exceeds this could not keep up
     * @param maxP99        optional: the server's overall P99 must not exceed this
     * @param maxErrorRatio errors / requests must not exceed this
     * @param maxClientStall optional: a client that stalled longer than this in the window (GC, safepoint,
     *                       descheduling) makes the run Invalid; unset, such a stall longer than maxSendLagP99 is a warning
     */
    public record Criteria(double rateTolerance, Duration maxSendLagP99, Optional<Duration> maxP99, double maxErrorRatio,
                           Optional<Duration> maxClientStall, Optional<BenchmarkRunValidation.ExpectedP99Integral> expectP99Integral) {
        public static final Criteria DEFAULT = new Criteria(0.01, Duration.ofMillis(10), Optional.empty(), 0.0);

        public Criteria(double rateTolerance, Duration maxSendLagP99, Optional<Duration> maxP99, double maxErrorRatio) {
            this(rateTolerance, maxSendLagP99, maxP99, maxErrorRatio, Optional.empty());
        }

        public Criteria(double rateTolerance, Duration maxSendLagP99, Optional<Duration> maxP99, double maxErrorRatio,
                        Optional<Duration> maxClientStall) {
            this(rateTolerance, maxSendLagP99, maxP99, maxErrorRatio, maxClientStall, Optional.empty());
        }
    }
}
