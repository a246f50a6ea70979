package dev.pacer.engine.suite;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * The rate search of a sweep, pure: rates grow by {@code growth} from {@code start} until one fails or {@code max}
 * passes; then the passing and failing rates are bisected until they lie within {@code resolution} of each other.
 * The sustained rate is the highest rate that passed below the lowest that failed. When the start itself fails, the
 * rates shrink by {@code growth} until one passes.
 * <p>A client-bound rate (the clients could not apply it) ends the climb like a failure, but what it found is the
 * client's limit: when the lowest rate that did not pass is client-bound, the sustained rate is only a lower bound.
 *
 * @param resolution e.g. 0.05: the bisection stops when {@code (failing - passing) / passing <= resolution}
 */
public record SweepSearch(long start, long max, double growth, double resolution, Duration maxClientP99) {

    /** One rate tried, whether it passed, and whether it was the clients that could not apply it. */
    public record Trial(long ratePerClient, boolean passed, boolean clientBound) {
        public Trial(long ratePerClient, boolean passed) {
            this(ratePerClient, passed, false);
        }
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

    /**
     * Whether the search found the clients' limit rather than the server's: the lowest rate that did not pass is
     * client-bound. The sustained rate, if any, is then "at least".
     */
    public boolean clientBound(List<Trial> trials) {
        return trials.stream().filter(t -> !t.passed()).min(Comparator.comparingLong(Trial::ratePerClient))
                .map(Trial::clientBound).orElse(false);
    }

    private static boolean tried(List<Trial> trials, long rate) {
        return trials.stream().anyMatch(t -> t.ratePerClient() == rate);
    }
}
