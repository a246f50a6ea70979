package dev.pacer.engine.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;

class SweepSearchTest {
    static final SweepSearch SEARCH = new SweepSearch(1_000, 100_000, 2.0, 0.05, Duration.ofMillis(10));

    /** The search run against a server that passes every rate up to its capacity. */
    static List<SweepSearch.Trial> search(SweepSearch search, LongPredicate passes) {
        List<SweepSearch.Trial> trials = new ArrayList<>();
        OptionalLong next;
        while ((next = search.next(trials)).isPresent()) {
            long rate = next.getAsLong();
            assertThat(trials).as("no rate twice").noneMatch(t -> t.ratePerClient() == rate);
            assertThat(trials.size()).as("a bounded search").isLessThan(40);
            trials.add(new SweepSearch.Trial(rate, passes.test(rate)));
        }
        return trials;
    }

    @Test
    void growsThenBisectsToTheCapacityWithinTheResolution() {
        List<SweepSearch.Trial> trials = search(SEARCH, rate -> rate <= 13_700);
        assertThat(trials).extracting(SweepSearch.Trial::ratePerClient).startsWith(1_000L, 2_000L, 4_000L, 8_000L, 16_000L);
        long sustained = SEARCH.sustained(trials).getAsLong();
        assertThat(sustained).isLessThanOrEqualTo(13_700).isGreaterThanOrEqualTo((long) (13_700 / 1.05));
        assertThat(trials).hasSizeLessThanOrEqualTo(5 + 5);
    }

    @Test
    void aServerPassingEverythingSustainsTheMaximumAndNoMore() {
        List<SweepSearch.Trial> trials = search(SEARCH, rate -> true);
        assertThat(trials.getLast().ratePerClient()).isEqualTo(100_000);
        assertThat(trials).allMatch(t -> t.ratePerClient() <= 100_000);
        assertThat(SEARCH.sustained(trials)).hasValue(100_000);
    }

    @Test
    void aStartThatFailsShrinksUntilARatePasses() {
        List<SweepSearch.Trial> trials = search(SEARCH, rate -> rate <= 300);
        assertThat(trials).extracting(SweepSearch.Trial::ratePerClient).startsWith(1_000L, 500L, 250L);
        assertThat(SEARCH.sustained(trials).getAsLong()).isBetween(286L, 300L);
    }

    @Test
    void nothingPassingEndsWithNoSustainedRate() {
        List<SweepSearch.Trial> trials = search(SEARCH, rate -> false);
        assertThat(SEARCH.sustained(trials)).isEmpty();
        assertThat(trials.getLast().ratePerClient()).isEqualTo(1);
    }

    @Test
    void aPassAboveAFailureIsNoiseNotCapacity() {
        List<SweepSearch.Trial> trials = List.of(new SweepSearch.Trial(1_000, true), new SweepSearch.Trial(2_000, false),
                new SweepSearch.Trial(4_000, true));
        assertThat(SEARCH.sustained(trials)).hasValue(1_000);
        assertThat(SEARCH.next(trials)).hasValue(1_500);
    }

    @Test
    void aClientBoundRateEndsTheClimbAndMakesTheSustainedRateALowerBound() {
        List<SweepSearch.Trial> trials = List.of(new SweepSearch.Trial(1_000, true), new SweepSearch.Trial(2_000, false, true));
        assertThat(SEARCH.sustained(trials)).hasValue(1_000);
        assertThat(SEARCH.clientBound(trials)).isTrue();
        assertThat(SEARCH.clientBound(List.of(new SweepSearch.Trial(1_000, true), new SweepSearch.Trial(2_000, false))))
                .as("a server's own failure").isFalse();
        assertThat(SEARCH.clientBound(List.of(new SweepSearch.Trial(1_000, true), new SweepSearch.Trial(2_000, false),
                new SweepSearch.Trial(4_000, false, true)))).as("the server failed first: its limit was found").isFalse();
    }
}
