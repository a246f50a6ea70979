package dev.pacer.api;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The one server series a comparison sets side by side ({@code spec.comparison.series} of a suite, {@code pacer compare
 * --series}): two servers timed by different instruments are never compared. The rules of which servers have which
 * series, and which series a comparison takes when none is named, live here.
 */
public enum ComparedSeries {
    /** pacer's agent inside the server: first request byte parsed to response completed. */
    PROCESSING,
    /** the kernel probe at the socket: first request byte read to last response byte written. */
    SERVICE,
    /** the kernel probe: request bytes arrived in the socket to last response byte written (service plus the wait to be read). */
    RESIDENCE;

    /** The schema's pattern: every {@link #spec()}. */
    public static final String PATTERN = "^(processing|service|residence)$";

    /**
     * A series' figures in one run's result: the terms of the comparison.
     *
     * @param name            the series' name in the result (residence, probe.service, …)
     * @param main            whether it is the result's main series (the one of its server.hlog and its periods' server statistics)
     * @param periodP99Micros each measured period's P99, the terms of the integral and of the rank test
     */
    public record Figures(String name, boolean main, Long p99IntegralMicros, Long maxIntegralMicros, Long p50Micros, Long p99Micros,
                          Long maxMicros, List<Long> periodP99Micros) {
    }

    public static Optional<ComparedSeries> parse(String spec) {
        return Arrays.stream(values()).filter(s -> s.spec().equals(spec)).findFirst();
    }

    public String spec() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether a server measured so has this series: the agent's processing, the probe's service and residence. */
    public boolean measuredWith(Measure measure) {
        return this == PROCESSING ? measure.agent() : measure.probe();
    }

    /** The measure a server needs for this series (with the agent's or the probe's own word beside it). */
    public String needs() {
        return this == PROCESSING ? "measure: agent or both" : "measure: probe or both";
    }

    /**
     * The series of a comparison that names none: the probe's service as soon as one server is measured by the probe
     * alone (it has no processing), else the agent's processing.
     */
    public static ComparedSeries unnamed(Collection<Measure> measures) {
        return measures.contains(Measure.PROBE) ? SERVICE : PROCESSING;
    }

    /** The series named, or the one {@link #unnamed} gives. */
    public static ComparedSeries of(String named, Collection<Measure> measures) {
        return named == null ? unnamed(measures) : parse(named).orElseThrow(
                () -> new IllegalArgumentException("must be processing, service or residence, was '" + named + "'"));
    }

    /** This series' figures in a run's result: its main series, or one of its other series; empty when it has neither. */
    public Optional<Figures> in(RunResult.ServerFigures server) {
        if (server == null || !server.histogramsAvailable) {
            return Optional.empty();
        }
        // a result from before the series was named: its measure says which its main series is
        String main = server.series != null ? server.series
                : Measure.parse(server.measuredBy).filter(m -> m == Measure.PROBE).isPresent() ? SERVICE.spec() : PROCESSING.spec();
        if (spec().equals(main)) {
            return Optional.of(new Figures(main, true, server.p99IntegralMicros, server.maxIntegralMicros, server.p50Micros,
                    server.p99Micros, server.maxMicros, server.periodP99Micros));
        }
        if (server.otherSeries == null) {
            return Optional.empty();
        }
        // the probe's series are named service and residence when it measures alone, probe.service and probe.residence beside the agent
        return server.otherSeries.stream().filter(o -> spec().equals(o.name) || ("probe." + spec()).equals(o.name)).findFirst()
                .map(o -> new Figures(o.name, false, o.p99IntegralMicros, o.maxIntegralMicros, o.p50Micros, o.p99Micros, o.maxMicros,
                        o.periodP99Micros));
    }
}
