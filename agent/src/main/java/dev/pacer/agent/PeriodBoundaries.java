package dev.pacer.agent;

/**
 * Wall-clock period arithmetic shared by every process of a run: periods are the half-open intervals
 * {@code [k * periodMillis, (k + 1) * periodMillis)} of epoch milliseconds, so that the periods of a server and of
 * its clients line up without any coordination beyond synchronised clocks.
 */
public final class PeriodBoundaries {
    private PeriodBoundaries() {
    }

    /** The first boundary strictly after {@code epochMillis}. */
    public static long nextBoundaryEpochMillis(long epochMillis, long periodMillis) {
        requirePositive(periodMillis);
        return Math.floorDiv(epochMillis, periodMillis) * periodMillis + periodMillis;
    }

    /** The boundary at or before {@code epochMillis}. */
    public static long boundaryAtOrBeforeEpochMillis(long epochMillis, long periodMillis) {
        requirePositive(periodMillis);
        return Math.floorDiv(epochMillis, periodMillis) * periodMillis;
    }

    private static void requirePositive(long periodMillis) {
        if (periodMillis <= 0) {
            throw new IllegalArgumentException("sample period must be > 0 ms, was " + periodMillis);
        }
    }
}
