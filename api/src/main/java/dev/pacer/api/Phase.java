package dev.pacer.api;

/** Where a run is. Status only moves forward along these transitions. */
public enum Phase {
    /** Accepted, nothing started. Moves to Starting, Queued, or Failed (invalid spec). */
    Pending,
    /** Waiting for other runs to finish: the operator runs at most its limit at once (PACER_MAX_ACTIVE_RUNS), oldest
     *  first, so that runs on the same machines never overlap. Moves to Starting, or Failed (timeout). */
    Queued,
    /** Server and clients starting, waiting for their agents. Moves to WarmingUp or Failed. */
    Starting,
    /** Load offered, before the measured window. Moves to Measuring or Failed. */
    WarmingUp,
    /** Inside the measured window. Moves to Collecting or Failed. */
    Measuring,
    /** Fetching histograms and info from every agent, analysing. Moves to Succeeded or Failed. */
    Collecting,
    /** Figures are in {@code status.result} (the verdict may still be Failed or Invalid). Final. */
    Succeeded,
    /** The run could not be completed; see the conditions. Final. */
    Failed;

    /** Pods exist or are being made: the run counts against the limit of active runs. */
    public boolean isActive() {
        return this == Starting || this == WarmingUp || this == Measuring || this == Collecting;
    }

    public boolean isFinal() {
        return this == Succeeded || this == Failed;
    }
}
