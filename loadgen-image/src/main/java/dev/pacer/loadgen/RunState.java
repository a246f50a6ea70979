package dev.pacer.loadgen;

import com.fasterxml.jackson.annotation.JsonValue;

/** The state of the client's one run, as {@code GET /pacer/v1/run} reports it. */
public enum RunState {
    /** No run posted yet. Moves to WAITING. */
    IDLE,
    /** Posted; waiting for {@code startAt}. Moves to WARMUP or FAILED. */
    WAITING,
    /** Sending, before the measured window. Moves to MEASURING or FAILED. */
    WARMUP,
    /** Sending inside the measured window, or draining the last responses. Moves to DONE or FAILED. */
    MEASURING,
    /** Every request sent and answered or failed; results stay available. Final. */
    DONE,
    /** The load could not be generated (e.g. cannot connect); see {@code failure}. Final. */
    FAILED;

    @JsonValue
    public String json() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
