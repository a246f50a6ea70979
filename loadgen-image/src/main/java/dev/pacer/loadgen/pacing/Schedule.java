package dev.pacer.loadgen.pacing;

/**
 * An open-loop schedule at a constant rate, optionally after a linear ramp from 0: after the ramp, request {@code n}
 * (from 0) is intended at {@code start + ramp + floor((n − rampRequests) × 1 s / rate)}, exactly, with no rounded
 * period, so the offered rate is the rate asked for. During the ramp the rate grows in proportion to the time since the
 * start (the rate at {@code t} is {@code rate × t / ramp}), so request {@code n} is intended at
 * {@code sqrt(2 × ramp × n / rate)}, and the ramp holds {@code rate × ramp / 2} requests.
 *
 * @param startNanos     the intended time of request 0, on the {@link Ticker}'s clock
 * @param ratePerSecond  requests per second, after the ramp
 * @param total          how many requests the schedule holds
 * @param rampNanos      how long the rate takes to grow from 0 to {@code ratePerSecond}; 0: no ramp
 * @param rampRequests   how many requests the ramp holds, {@code rate × ramp / 2} (kept: read for every request)
 */
public record Schedule(long startNanos, long ratePerSecond, long total, long rampNanos, long rampRequests) {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    public Schedule {
        if (ratePerSecond <= 0 || total < 0 || rampNanos < 0) {
            throw new IllegalArgumentException("rate must be > 0, total and ramp >= 0, were " + ratePerSecond + ", " + total + " and " + rampNanos);
        }
        if (rampRequests != rampRequests(ratePerSecond, rampNanos)) {
            throw new IllegalArgumentException("a ramp of " + rampNanos + " ns at " + ratePerSecond + "/s holds "
                    + rampRequests(ratePerSecond, rampNanos) + " requests, not " + rampRequests);
        }
    }

    /** Ramping up over {@code rampNanos}. */
    public Schedule(long startNanos, long ratePerSecond, long total, long rampNanos) {
        this(startNanos, ratePerSecond, total, rampNanos, rampRequests(ratePerSecond, rampNanos));
    }

    /** At a constant rate from the start. */
    public Schedule(long startNanos, long ratePerSecond, long total) {
        this(startNanos, ratePerSecond, total, 0);
    }

    /** The schedule that covers {@code lengthNanos} from the start (the last request intended before its end). */
    public static Schedule covering(long startNanos, long ratePerSecond, long lengthNanos) {
        return covering(startNanos, ratePerSecond, lengthNanos, 0);
    }

    /** The same, its first {@code rampNanos} (at most the length) ramping up from 0. */
    public static Schedule covering(long startNanos, long ratePerSecond, long lengthNanos, long rampNanos) {
        long ramp = Math.min(Math.max(0, rampNanos), lengthNanos);
        long ramped = rampRequests(ratePerSecond, ramp);
        long total = ramped + Math.ceilDiv(Math.multiplyExact(lengthNanos - ramp, ratePerSecond), NANOS_PER_SECOND);
        return new Schedule(startNanos, ratePerSecond, total, ramp);
    }

    /** Requests the ramp holds: its integral, {@code rate × ramp / 2}, rounded down. */
    private static long rampRequests(long ratePerSecond, long rampNanos) {
        if (ratePerSecond <= 0 || rampNanos <= 0) {
            return 0;
        }
        return Math.multiplyExact(ratePerSecond, rampNanos) / (2 * NANOS_PER_SECOND);
    }

    /** When request {@code n} is intended, without overflow for any count a run can hold. */
    public long intendedNanos(long n) {
        if (n < rampRequests) {
            // n = rate × t² / (2 × ramp): t = sqrt(2 × ramp × n / rate), in doubles (exact to well under a nanosecond)
            return startNanos + (long) Math.sqrt(2.0 * rampNanos * n * NANOS_PER_SECOND / ratePerSecond);
        }
        long k = n - rampRequests;
        return startNanos + rampNanos + (k / ratePerSecond) * NANOS_PER_SECOND + (k % ratePerSecond) * NANOS_PER_SECOND / ratePerSecond;
    }

    /** The rate intended {@code sinceStartNanos} after the start: growing during the ramp, then the rate. */
    public double rateAt(long sinceStartNanos) {
        if (sinceStartNanos < 0) {
            return 0;
        }
        return sinceStartNanos >= rampNanos ? ratePerSecond : (double) ratePerSecond * sinceStartNanos / rampNanos;
    }

    /** How many of its requests are intended at or before {@code atNanos}: those due by then (intended times only grow). */
    public long dueBy(long atNanos) {
        long low = 0;
        long high = total;   // intendedNanos(low - 1) <= atNanos < intendedNanos(high), with the bounds as sentinels
        while (low < high) {
            long middle = (low + high) >>> 1;
            if (intendedNanos(middle) <= atNanos) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The same schedule running on to {@code lengthNanos} from its start: the requests it holds keep their times. */
    public Schedule extendedTo(long lengthNanos) {
        Schedule longer = covering(startNanos, ratePerSecond, lengthNanos, rampNanos);
        return longer.total >= total ? longer : this;
    }

    /** How many of the requests {@code shard, shard + shards, …} the schedule holds. */
    public long countOf(int shard, int shards) {
        return shard >= total ? 0 : (total - shard + shards - 1) / shards;
    }
}
