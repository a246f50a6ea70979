package dev.pacer.api;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.contract.AgentContract;

/**
 * {@code spec.server.measure}: who serves the server's histograms, the one rule both platforms, the protocol and the
 * analysis follow (docs/design.md, "Measuring the server"). The spec, the status and the result write it as
 * {@link #spec()}.
 */
public enum Measure {
    /** pacer's agent in the server process. */
    AGENT,
    /** the kernel probe, the server's agent for the run. */
    PROBE,
    /** the agent; the probe on the same requests, its series beside. */
    BOTH,
    /** nothing: no server histograms, the verdict rests on the clients. */
    NONE;

    /** The schema's pattern of {@code spec.server.measure}: every {@link #spec()} (a test keeps the two equal). */
    public static final String PATTERN = "^(agent|probe|both|none)$";

    /** Who answers the agent contract for the server role. */
    public enum ServerAnswerer {
        /** pacer's agent in the server process, on its admin port. */
        SERVER_PROCESS,
        /** the kernel probe beside the server, on its own admin port. */
        PROBE,
        /** nobody: the server is not measured. */
        NOBODY
    }

    /** The spec's word, or empty for a word that is none of them. Unset is {@link #AGENT}. */
    public static Optional<Measure> parse(String spec) {
        if (spec == null) {
            return Optional.of(AGENT);
        }
        return Arrays.stream(values()).filter(m -> m.spec().equals(spec)).findFirst();
    }

    /** The spec's word; unset is {@link #AGENT}. */
    public static Measure of(String spec) {
        return parse(spec).orElseThrow(() -> new IllegalArgumentException("must be agent, probe, both or none, was '" + spec + "'"));
    }

    public String spec() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The server embeds the agent: its readiness, its cpuset and its histograms come from its admin port. */
    public boolean agent() {
        return this == AGENT || this == BOTH;
    }

    /** The kernel probe runs beside the server. */
    public boolean probe() {
        return this == PROBE || this == BOTH;
    }

    /** Someone serves the server's histograms (the agent or the probe). */
    public boolean measured() {
        return this != NONE;
    }

    /** Who answers for the server role: its own agent, the probe in its place, or nobody. */
    public ServerAnswerer serverAnswerer() {
        return switch (this) {
            case AGENT, BOTH -> ServerAnswerer.SERVER_PROCESS;
            case PROBE -> ServerAnswerer.PROBE;
            case NONE -> ServerAnswerer.NOBODY;
        };
    }

    /**
     * The series the server's figures are read from: the probe's service time when it answers in the server's place,
     * else the agent's processing time (also the name a series has where nobody measures).
     */
    public String mainSeries() {
        return serverAnswerer() == ServerAnswerer.PROBE ? AgentContract.SERIES_SERVICE : AgentContract.SERIES_PROCESSING;
    }

    /** The probe answers beside the server's own agent, its series kept next to the agent's. */
    public boolean probeBeside() {
        return this == BOTH;
    }
}
