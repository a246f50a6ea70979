package dev.pacer.api;

/** Where a run is. Status only moves forward along these transitions. */
public enum Phase {
    /** Accepted, nothing started. Moves to Starting, or Failed (invalid spec). */
    Pending,
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

    public boolean isFinal() {
        return this == Succeeded || this == Failed;
    }
}
