package dev.pacer.loadgen.pacing;

/**
 * An open-loop constant-rate schedule: request {@code n} (from 0) is intended at {@code start + floor(n × 1 s / rate)},
 * exactly, with no rounded period, so the offered rate is the rate asked for.
 *
 * @param startNanos     the intended time of request 0, on the {@link Ticker}'s clock
 * @param ratePerSecond  requests per second
 * @param total          how many requests the schedule holds
 */
public record Schedule(long startNanos, long ratePerSecond, long total) {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    public Schedule {
        if (ratePerSecond <= 0 || total < 0) {
            throw new IllegalArgumentException("rate must be > 0 and total >= 0, were " + ratePerSecond + " and " + total);
        }
    }

    /** The schedule that covers {@code lengthNanos} from the start (the last request intended before its end). */
    public static Schedule covering(long startNanos, long ratePerSecond, long lengthNanos) {
        long total = Math.ceilDiv(Math.multiplyExact(lengthNanos, ratePerSecond), NANOS_PER_SECOND);
        return new Schedule(startNanos, ratePerSecond, total);
    }

    /** {@code start + floor(n × 1 s / rate)}, without overflow for any count a run can hold. */
    public long intendedNanos(long n) {
        return startNanos + (n / ratePerSecond) * NANOS_PER_SECOND + (n % ratePerSecond) * NANOS_PER_SECOND / ratePerSecond;
    }

    /** How many of the requests {@code shard, shard + shards, …} the schedule holds. */
    public long countOf(int shard, int shards) {
        return shard >= total ? 0 : (total - shard + shards - 1) / shards;
    }
}
