package dev.pacer.engine.suite;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * The rate search of a sweep, pure: rates grow by {@code growth} from {@code start} until one fails or {@code max}
 * passes; then the passing and failing rates are bisected until they lie within {@code resolution} of each other.
 * The sustained rate is the highest rate that passed below the lowest that failed. When the start itself fails, the
 * rates shrink by {@code growth} until one passes.
 *
 * @param resolution e.g. 0.05: the bisection stops when {@code (failing - passing) / passing <= resolution}
 */
public record SweepSearch(long start, long max, double growth, double resolution, Duration maxClientP99) {

    /** One rate tried and whether it passed. */
    public record Trial(long ratePerClient, boolean passed) {
    }

    public SweepSearch {
        if (start < 1 || max < start || growth <= 1 || resolution <= 0) {
            throw new IllegalArgumentException("sweep needs 1 <= start <= max, growth > 1, resolution > 0; was start " + start
                    + ", max " + max + ", growth " + growth + ", resolution " + resolution);
        }
    }

    /** The next rate to try after these trials, or empty when the search is over. */
    public OptionalLong next(List<Trial> trials) {
        if (trials.isEmpty()) {
            return OptionalLong.of(start);
        }
        OptionalLong lowestFail = trials.stream().filter(t -> !t.passed()).mapToLong(Trial::ratePerClient).min();
        if (lowestFail.isEmpty()) {
            long highest = trials.stream().mapToLong(Trial::ratePerClient).max().getAsLong();
            return highest >= max ? OptionalLong.empty() : OptionalLong.of(Math.min(max, Math.max(highest + 1, Math.round(highest * growth))));
        }
        long fail = lowestFail.getAsLong();
        OptionalLong pass = sustained(trials);
        if (pass.isEmpty()) {
            long lower = (long) Math.floor(fail / growth);
            return lower < 1 || tried(trials, lower) ? OptionalLong.empty() : OptionalLong.of(lower);
        }
        long lo = pass.getAsLong();
        if ((fail - lo) <= resolution * lo || fail - lo <= 1) {
            return OptionalLong.empty();
        }
        long middle = lo + (fail - lo) / 2;
        return tried(trials, middle) ? OptionalLong.empty() : OptionalLong.of(middle);
    }

    /** The highest rate that passed below the lowest that failed (a pass above a failure is noise, not capacity). */
    public OptionalLong sustained(List<Trial> trials) {
        long lowestFail = trials.stream().filter(t -> !t.passed()).mapToLong(Trial::ratePerClient).min().orElse(Long.MAX_VALUE);
        return trials.stream().filter(t -> t.passed() && t.ratePerClient() < lowestFail).mapToLong(Trial::ratePerClient).max();
    }

    private static boolean tried(List<Trial> trials, long rate) {
        return trials.stream().anyMatch(t -> t.ratePerClient() == rate);
    }
}
