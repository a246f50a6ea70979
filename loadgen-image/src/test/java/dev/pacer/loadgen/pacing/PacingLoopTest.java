package dev.pacer.loadgen.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

/** The pacing loop on a fake clock: when requests leave, with which intended time, and what is never sent. */
class PacingLoopTest {
    static final long MS = 1_000_000;

    /** A clock that moves only when the loop parks (by the time asked, plus an overshoot) or a send takes time. */
    static final class FakeTicker implements Ticker {
        long now;
        long parkOvershootNanos;
        long sendCostNanos;
        final List<Long> parks = new ArrayList<>();
        /** Once, at this time, the clock jumps: the loop's thread was not scheduled (a stall). */
        long stallAtNanos = Long.MAX_VALUE;
        long stallNanos;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void parkNanos(long nanos) {
            parks.add(nanos);
            now += nanos + parkOvershootNanos;
            if (now >= stallAtNanos) {
                now += stallNanos;
                stallAtNanos = Long.MAX_VALUE;
            }
        }
    }

    record Sent(long index, long intended, long sent) {
    }

    static List<Sent> run(Schedule schedule, FakeTicker ticker, int shard, int shards, int batch, long stopAt, List<PacingLoop.Result> results) {
        return run(schedule, ticker, shard, shards, batch, 0, stopAt, results);
    }

    static List<Sent> run(Schedule schedule, FakeTicker ticker, int shard, int shards, int batch, long minWakeupInterval, long stopAt,
                          List<PacingLoop.Result> results) {
        List<Sent> sent = new ArrayList<>();
        PacingLoop loop = new PacingLoop(schedule, shard, shards, batch, minWakeupInterval, stopAt, ticker, (i, intended, at) -> {
            sent.add(new Sent(i, intended, at));
            ticker.now += ticker.sendCostNanos;
        });
        results.add(loop.run());
        return sent;
    }

    @Test
    void theScheduleIsExactWithNoRoundedPeriod() {
        Schedule s = Schedule.covering(1_000, 3, 1_000 * MS);
        assertThat(s.total()).isEqualTo(3);
        assertThat(s.intendedNanos(0)).isEqualTo(1_000);
        assertThat(s.intendedNanos(1)).isEqualTo(1_000 + 333_333_333);
        assertThat(s.intendedNanos(2)).isEqualTo(1_000 + 666_666_666);
        assertThat(s.intendedNanos(3)).isEqualTo(1_000 + 1_000_000_000);
        Schedule fast = new Schedule(0, 60_000, Long.MAX_VALUE / 2);
        long n = 3_600L * 24 * 365 * 60_000;   // a year of requests at 60k/s: no overflow
        assertThat(fast.intendedNanos(n)).isEqualTo(3_600L * 24 * 365 * 1_000_000_000L);
        assertThat(Schedule.covering(0, 40_000, 1_500 * MS).total()).isEqualTo(60_000);
    }

    /**
     * Requests 10 µs apart and a 50 µs wake-up interval: the loop parks to its next wake-up at least 50 µs after the last
     * one, sends all that fell due meanwhile, none early, none dropped, and no request waits more than one interval.
     */
    @Test
    void requestsCloserThanTheWakeupIntervalGoOutTogether() {
        long interval = 50_000;
        FakeTicker ticker = new FakeTicker();
        ticker.sendCostNanos = 500;
        List<PacingLoop.Result> results = new ArrayList<>();
        List<Sent> sent = run(Schedule.covering(0, 100_000, 10 * MS), ticker, 0, 1, 256, interval, Long.MAX_VALUE, results);
        assertThat(results.getFirst()).isEqualTo(new PacingLoop.Result(1_000, 0, false));
        assertThat(sent).extracting(Sent::index).containsExactlyElementsOf(LongStream.range(0, 1_000).boxed().toList());
        assertThat(sent).allSatisfy(s -> assertThat(s.sent()).isGreaterThanOrEqualTo(s.intended()));
        long maxLag = sent.stream().mapToLong(s -> s.sent() - s.intended()).max().orElseThrow();
        assertThat(maxLag).as("no request waits more than an interval and its batch's sending").isLessThanOrEqualTo(interval + 6 * 500);
        // each park lasts from its send batch's end to at least an interval after the wake-up that sent it
        assertThat(ticker.parks).hasSizeLessThanOrEqualTo((int) (10 * MS / interval) + 1);
        assertThat(ticker.parks.subList(1, ticker.parks.size())).allSatisfy(park -> assertThat(park).isGreaterThanOrEqualTo(interval - 6 * 500));
        // the same schedule without an interval wakes for every request
        FakeTicker everyRequest = new FakeTicker();
        everyRequest.sendCostNanos = 500;
        run(Schedule.covering(0, 100_000, 10 * MS), everyRequest, 0, 1, 256, 0, Long.MAX_VALUE, new ArrayList<>());
        assertThat(everyRequest.parks).hasSizeGreaterThanOrEqualTo(999);
    }

    /**
     * Requests farther apart than the interval are each sent at their own time: the interval only merges what is closer,
     * and a late wake-up (the timer's slack) does not push the next one back.
     */
    @Test
    void requestsFartherApartThanTheWakeupIntervalAreNotDelayed() {
        FakeTicker onTime = new FakeTicker();
        List<Sent> sent = run(Schedule.covering(0, 5_000, 10 * MS), onTime, 0, 1, 256, 50_000, Long.MAX_VALUE, new ArrayList<>());
        assertThat(sent).hasSize(50).allSatisfy(s -> assertThat(s.sent()).isEqualTo(s.intended()));

        FakeTicker late = new FakeTicker();
        late.parkOvershootNanos = 57_000;   // every wake-up 57 µs late; requests 100 µs apart
        List<Sent> lateSent = run(Schedule.covering(0, 10_000, 10 * MS), late, 0, 1, 256, 50_000, Long.MAX_VALUE, new ArrayList<>());
        assertThat(lateSent).hasSize(100).allSatisfy(s -> assertThat(s.sent() - s.intended()).isBetween(0L, 57_000L));
    }

    @Test
    void noRequestLeavesBeforeItsIntendedTimeAndLagIsNeverNegative() {
        FakeTicker ticker = new FakeTicker();
        ticker.parkOvershootNanos = 57_000;   // the kernel's timer slack and wake-up latency
        ticker.sendCostNanos = 3_000;
        List<PacingLoop.Result> results = new ArrayList<>();
        List<Sent> sent = run(Schedule.covering(0, 40_000, 100 * MS), ticker, 0, 1, 128, Long.MAX_VALUE, results);
        assertThat(sent).hasSize(4_000);
        assertThat(sent).allSatisfy(s -> assertThat(s.sent()).isGreaterThanOrEqualTo(s.intended()));
        assertThat(sent).extracting(Sent::index).containsExactlyElementsOf(LongStream.range(0, 4_000).boxed().toList());
        long maxLag = sent.stream().mapToLong(s -> s.sent() - s.intended()).max().orElseThrow();
        assertThat(maxLag).as("a wake-up sends everything due").isLessThan(57_000 + 25_000 + 4 * 3_000);
        assertThat(results.getFirst()).isEqualTo(new PacingLoop.Result(4_000, 0, false));
        assertThat(ticker.parks.size()).as("one wake-up per several requests, not one per request").isLessThan(4_000);
    }

    @Test
    void aStallIsCaughtUpWithEachRequestsOwnIntendedTime() {
        FakeTicker ticker = new FakeTicker();
        ticker.stallAtNanos = 10 * MS;
        ticker.stallNanos = 200 * MS;   // the thread did not run for 200 ms
        ticker.sendCostNanos = 1_000;
        List<PacingLoop.Result> results = new ArrayList<>();
        List<Sent> sent = run(Schedule.covering(0, 10_000, 500 * MS), ticker, 0, 1, 16, Long.MAX_VALUE, results);
        assertThat(sent).hasSize(5_000);
        Schedule schedule = Schedule.covering(0, 10_000, 500 * MS);
        assertThat(sent).allSatisfy(s -> assertThat(s.intended()).isEqualTo(schedule.intendedNanos(s.index())));
        // 2 000 requests were intended during the stall; each left as soon as it ended, its lag being its own wait
        List<Sent> backlog = sent.stream().filter(s -> s.sent() - s.intended() > MS).toList();
        assertThat(backlog).as("requests intended during the stall and the 2 ms of catching up").hasSizeBetween(1_990, 2_040);
        assertThat(sent.stream().filter(s -> s.sent() - s.intended() > 50 * MS).count())
                .as("those intended in its first 150 ms waited over 50 ms").isBetween(1_450L, 1_560L);
        assertThat(backlog.getFirst().sent() - backlog.getFirst().intended()).isGreaterThanOrEqualTo(199 * MS);
        assertThat(results.getFirst().unsent()).isZero();
        assertThat(sent).allSatisfy(s -> assertThat(s.sent()).isGreaterThanOrEqualTo(s.intended()));
    }

    @Test
    void whatIsNotSentByTheStopIsCountedAsUnsent() {
        FakeTicker ticker = new FakeTicker();
        ticker.sendCostNanos = 200_000;   // 5 000 req/s at most against 10 000 asked: falls behind
        List<PacingLoop.Result> results = new ArrayList<>();
        List<Sent> sent = run(Schedule.covering(0, 10_000, 1_000 * MS), ticker, 0, 1, 64, 1_000 * MS, results);
        PacingLoop.Result result = results.getFirst();
        assertThat(result.sent()).isEqualTo(sent.size()).isBetween(4_900L, 5_100L);
        assertThat(result.unsent()).isEqualTo(10_000 - result.sent());
        assertThat(result.stoppedBehind()).isTrue();
    }

    /** The window moved later while the loop ran: it sends on to the longer schedule's end, every request at its own time. */
    @Test
    void anExtendedScheduleIsSentToItsNewEndWithTheSameTimesAndALaterStop() {
        FakeTicker ticker = new FakeTicker();
        Schedule first = Schedule.covering(0, 1_000, 1_000 * MS);
        Schedule longer = first.extendedTo(3_000 * MS);
        assertThat(longer.total()).isEqualTo(3_000);
        List<Sent> sent = new ArrayList<>();
        PacingLoop[] loop = new PacingLoop[1];
        loop[0] = new PacingLoop(first, 0, 1, 16, 0, 1_200 * MS, ticker, (i, intended, at) -> {
            sent.add(new Sent(i, intended, at));
            if (i == 500) {
                loop[0].extend(longer, 3_200 * MS);   // as POST /pacer/v1/run/window does, mid-run
            }
        });
        PacingLoop.Result result = loop[0].run();
        assertThat(result).isEqualTo(new PacingLoop.Result(3_000, 0, false));
        assertThat(sent).extracting(Sent::index).containsExactlyElementsOf(LongStream.range(0, 3_000).boxed().toList());
        assertThat(sent).allSatisfy(s -> assertThat(s.intended()).isEqualTo(longer.intendedNanos(s.index())));
        assertThat(sent).allSatisfy(s -> assertThat(s.sent()).isGreaterThanOrEqualTo(s.intended()));
        assertThatThrownBy(() -> loop[0].extend(Schedule.covering(1, 1_000, 4_000 * MS), 0))
                .as("another schedule is no extension").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shardsShareOneScheduleWithoutOverlap() {
        List<Long> indices = new ArrayList<>();
        List<PacingLoop.Result> results = new ArrayList<>();
        Schedule schedule = Schedule.covering(0, 1_000, 1_000 * MS);
        for (int shard = 0; shard < 3; shard++) {
            run(schedule, new FakeTicker(), shard, 3, 8, Long.MAX_VALUE, results).forEach(s -> {
                indices.add(s.index());
                assertThat(s.intended()).isEqualTo(schedule.intendedNanos(s.index()));
            });
        }
        assertThat(indices).hasSize(1_000).doesNotHaveDuplicates();
        assertThat(results).extracting(PacingLoop.Result::sent).containsExactly(334L, 333L, 333L);
        assertThat(schedule.countOf(0, 3) + schedule.countOf(1, 3) + schedule.countOf(2, 3)).isEqualTo(1_000);
    }

    @Test
    void aStartInTheFutureWaitsAndAStartInThePastSendsTheBacklog() {
        FakeTicker late = new FakeTicker();
        late.now = 5 * MS;   // the loop started 5 ms after request 0 was due
        List<PacingLoop.Result> results = new ArrayList<>();
        List<Sent> sent = run(Schedule.covering(0, 1_000, 10 * MS), late, 0, 1, 128, Long.MAX_VALUE, results);
        assertThat(sent.subList(0, 6)).allSatisfy(s -> assertThat(s.sent()).isEqualTo(5 * MS));
        FakeTicker early = new FakeTicker();
        List<Sent> waited = run(Schedule.covering(3 * MS, 1_000, 2 * MS), early, 0, 1, 128, Long.MAX_VALUE, results);
        assertThat(early.parks.getFirst()).isEqualTo(3 * MS);
        assertThat(waited.getFirst().sent()).isEqualTo(3 * MS);
    }

    /** A thread that also reads responses (a selector) gets the loop back between batches of a backlog, never a wait. */
    @Test
    void aBacklogIsSentOneBatchPerWakeUpEachAnsweringATimeAlreadyDue() {
        FakeTicker ticker = new FakeTicker();
        ticker.now = 600 * MS;   // 601 requests due at once, one per ms from 0
        List<Sent> sent = new ArrayList<>();
        PacingLoop loop = new PacingLoop(Schedule.covering(0, 1_000, 1_000 * MS), 0, 1, 256, 0, Long.MAX_VALUE, ticker,
                (i, intended, at) -> sent.add(new Sent(i, intended, at)));
        List<Long> wakeAts = new ArrayList<>();
        List<Long> sentSoFar = new ArrayList<>();
        for (int call = 0; call < 3; call++) {
            wakeAts.add(loop.wakeUp());
            sentSoFar.add(loop.sentSoFar());
        }
        assertThat(sentSoFar).containsExactly(256L, 512L, 601L);
        assertThat(wakeAts.subList(0, 2)).allSatisfy(at -> assertThat(at).isLessThanOrEqualTo(ticker.now));
        assertThat(wakeAts.get(2)).as("the backlog sent: the next request at its own time").isEqualTo(601 * MS);
        assertThat(sent).extracting(Sent::index).containsExactlyElementsOf(LongStream.range(0, 601).boxed().toList());
    }
}
