package dev.pacer.api;

/** What the figures say. */
public enum Verdict {
    /** Valid measurement, criteria met (or none given). */
    Passed,
    /** Valid measurement, a criterion not met. */
    Failed,
    /** The measurement cannot be trusted (rate not achieved, client lag, missing periods, no server histograms). */
    Invalid
}
