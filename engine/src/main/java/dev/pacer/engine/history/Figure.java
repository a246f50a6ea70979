package dev.pacer.engine.history;

/**
 * A headline figure a history follows run to run, and which way is worse. The percentile spectrum is followed as one
 * multivariate series besides ({@link HistoryPoint#SPECTRUM_PERCENTILES}).
 */
public enum Figure {
    /** The server's P99 integral (its main series: the agent's processing, or the probe's service), microseconds. */
    p99Integral(true),
    /** The server's max integral, microseconds. */
    maxIntegral(true),
    /** Responses per second inside the window, all clients. */
    achievedRate(false),
    /** Failed requests and error statuses, all clients; followed as log(1 + errors). */
    errors(true),
    /** The server's percentile spectrum over the window (p50 … p99.99, max): a shift no single figure shows. */
    spectrum(true);

    private final boolean higherIsWorse;

    Figure(boolean higherIsWorse) {
        this.higherIsWorse = higherIsWorse;
    }

    /** Whether a change of this relative size makes the figure worse. */
    public boolean regression(double shift) {
        return higherIsWorse ? shift > 0 : shift < 0;
    }
}
