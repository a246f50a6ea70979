package dev.pacer.engine.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import org.junit.jupiter.api.Test;

/** A sweep's judgement of one rate: passed, or what bound it. */
class SuiteOutcomeTest {
    static final Duration LIMIT = Duration.ofMillis(10);

    static RunResult result(Verdict verdict, long clientP99Micros, double offered, double achieved) {
        RunResult r = new RunResult();
        r.verdict = verdict;
        r.clients = new RunResult.ClientFigures();
        r.clients.p99Micros = clientP99Micros;
        r.clients.errors = 0L;
        RunResult.ClientFigure client = new RunResult.ClientFigure();
        client.name = "client-0";
        client.offeredRate = offered;
        client.achievedRate = achieved;
        r.clients.perClient.add(client);
        return r;
    }

    static SuiteOutcome.Bound bound(RunResult r) {
        return SuiteOutcome.of(r).judge(LIMIT, 0.05).bound();
    }

    @Test
    void aValidRateWithinTheLimitPasses() {
        assertThat(bound(result(Verdict.Passed, 2_000, 1_000, 1_000))).isEqualTo(SuiteOutcome.Bound.NONE);
    }

    @Test
    void aClientThatCouldNotKeepUpIsClientBoundWhateverElseTheRunShows() {
        RunResult r = result(Verdict.Invalid, 900_000, 1_000, 400);
        r.clientBound = true;
        r.reasons.add("client-0 sent late: send lag P99 120.000 ms exceeds 50.000 ms, the client could not keep up with its rate");
        SuiteOutcome.Judgement judgement = SuiteOutcome.of(r).judge(LIMIT, 0.05);
        assertThat(judgement.bound()).isEqualTo(SuiteOutcome.Bound.CLIENT);
        assertThat(judgement.why()).isEqualTo("client-bound: " + r.reasons.getFirst());
    }

    @Test
    void anInvalidRunNeverPassesARateEvenWithinEveryLimit() {
        RunResult r = result(Verdict.Invalid, 2_000, 1_000, 1_000);
        r.reasons.add("server histograms unavailable");
        assertThat(bound(r)).isEqualTo(SuiteOutcome.Bound.INVALID);
    }

    @Test
    void aServerWithItsCpusBusyIsCpuBoundAndOneWithCpuLeftIsAtTheLatencyLimit() {
        RunResult slow = result(Verdict.Passed, 50_000, 1_000, 1_000);
        slow.server = new RunResult.ServerFigures();
        slow.server.footprint = new RunResult.Footprint();
        slow.server.footprint.cpuUtilization = 0.4;
        assertThat(bound(slow)).isEqualTo(SuiteOutcome.Bound.LATENCY_LIMIT);
        slow.server.footprint.cpuUtilization = 0.97;
        assertThat(bound(slow)).isEqualTo(SuiteOutcome.Bound.SERVER_CPU);
    }

    /** The clients' p99 over the limit, with its parts: their send lag p99 and the probe's residence p99 (µs). */
    static RunResult overTheLimit(long sendLagP99Micros, long residenceP99Micros) {
        RunResult r = result(Verdict.Passed, 29_000, 1_000, 1_000);
        r.clients.sendLagP99Micros = sendLagP99Micros;
        r.server = new RunResult.ServerFigures();
        r.server.series = "service";
        r.server.p99Micros = 55L;
        RunResult.SeriesFigures residence = new RunResult.SeriesFigures();
        residence.name = "residence";
        residence.p99Micros = residenceP99Micros;
        r.server.otherSeries = java.util.List.of(residence);
        return r;
    }

    @Test
    void aP99OverTheLimitIsTheServersOnlyWhenItsPartCarriesHalfOfIt() {
        // as a sweep of Chappe found: client p99 29 ms, send lag p99 5.7 ms, residence p99 4.4 ms: neither carries it
        SuiteOutcome.Judgement between = SuiteOutcome.of(overTheLimit(5_700, 4_400)).judge(LIMIT, 0.05);
        assertThat(between.bound()).isEqualTo(SuiteOutcome.Bound.OUTSIDE_SERVER);
        assertThat(between.notTheServers()).isTrue();
        assertThat(between.why()).contains("send lag 20 % · server residence 15 % · between 65 %");
        assertThat(bound(overTheLimit(5_700, 20_000))).as("the residence carries 69 %").isEqualTo(SuiteOutcome.Bound.LATENCY_LIMIT);
        SuiteOutcome.Judgement late = SuiteOutcome.of(overTheLimit(16_000, 4_400)).judge(LIMIT, 0.05);
        assertThat(late.bound()).as("the clients' own lag carries 55 %").isEqualTo(SuiteOutcome.Bound.CLIENT);
        assertThat(late.why()).startsWith("client-bound: client p99 29.000 ms above 10.000 ms, carried by the clients' own send lag");
    }

    /**
     * 15 periods of 1 ms client p99 (quiet), then the periods over the limit, each {client p99, send lag p99, residence p99}
     * in µs; the window's figures stay those of {@link #overTheLimit}: neither part carries half of the window's p99.
     */
    static RunResult overTheLimitIn(long[]... overPeriods) {
        RunResult r = overTheLimit(5_700, 4_400);
        List<Long> client = new ArrayList<>(), lag = new ArrayList<>(), residence = new ArrayList<>();
        for (int i = 0; i < 15 - overPeriods.length; i++) {
            client.add(1_000L);
            lag.add(100L);
            residence.add(200L);
        }
        for (long[] period : overPeriods) {
            client.add(period[0]);
            lag.add(period[1]);
            residence.add(period[2]);
        }
        r.clients.periodP99Micros = client;
        r.clients.periodSendLagP99Micros = lag;
        r.server.otherSeries.getFirst().periodP99Micros = residence;
        return r;
    }

    @Test
    void perPeriodTheBoundIsThePartThatCarriedTheMostPeriodsOverTheLimit() {
        // the window alone would say "between": here the clients' lag carried two of the three periods over 10 ms
        RunResult late = overTheLimitIn(new long[] {30_000, 20_000, 900}, new long[] {25_000, 14_000, 700}, new long[] {40_000, 2_000, 30_000});
        SuiteOutcome.Judgement client = SuiteOutcome.of(late).judge(LIMIT, 0.05);
        assertThat(client.bound()).isEqualTo(SuiteOutcome.Bound.CLIENT);
        assertThat(client.why()).startsWith("client-bound: client p99 29.000 ms above 10.000 ms, carried by the clients' own send lag in most periods: "
                + "3 of 15 periods over 10.000 ms: send lag 2 · server residence 1 · between 0; over the window,");
        assertThat(SuiteOutcome.of(late).p99Parts().orElseThrow().shares(LIMIT))
                .isEqualTo("send lag 20 % · server residence 15 % · between 65 %; 3 of 15 periods over 10.000 ms: send lag 2 · server residence 1 · between 0");

        RunResult server = overTheLimitIn(new long[] {30_000, 900, 20_000}, new long[] {25_000, 700, 14_000}, new long[] {40_000, 20_000, 3_000});
        assertThat(bound(server)).as("the server's part carried two of three").isEqualTo(SuiteOutcome.Bound.LATENCY_LIMIT);

        RunResult between = overTheLimitIn(new long[] {30_000, 900, 2_000}, new long[] {25_000, 700, 14_000}, new long[] {40_000, 20_000, 3_000});
        assertThat(bound(between)).as("one period each: not the server's").isEqualTo(SuiteOutcome.Bound.CLIENT);
        RunResult outside = overTheLimitIn(new long[] {30_000, 900, 2_000}, new long[] {25_000, 700, 14_000}, new long[] {40_000, 1_000, 3_000});
        assertThat(bound(outside)).as("two of three went between").isEqualTo(SuiteOutcome.Bound.OUTSIDE_SERVER);
    }

    @Test
    void periodListsOfOtherLengthsAreNotSetSideBySideAndTheWindowDecides() {
        RunResult r = overTheLimitIn(new long[] {30_000, 900, 20_000}, new long[] {25_000, 700, 14_000});
        r.clients.periodSendLagP99Micros = r.clients.periodSendLagP99Micros.subList(1, 15);
        assertThat(SuiteOutcome.of(r).p99Parts().orElseThrow().periods()).isEmpty();
        assertThat(bound(r)).as("over the window neither carries half").isEqualTo(SuiteOutcome.Bound.OUTSIDE_SERVER);
        assertThat(SuiteOutcome.of(r).p99Parts().orElseThrow().shares(LIMIT)).isEqualTo("send lag 20 % · server residence 15 % · between 65 %");
    }

    @Test
    void withoutTheProbeTheServersOwnSeriesIsItsPart() {
        RunResult r = overTheLimit(2_000, 0);
        r.server.otherSeries = null;
        r.server.series = "processing";
        r.server.p99Micros = 25_000L;
        assertThat(SuiteOutcome.of(r).p99Parts().orElseThrow().shares()).isEqualTo("send lag 7 % · server processing 86 % · between 7 %");
        assertThat(bound(r)).isEqualTo(SuiteOutcome.Bound.LATENCY_LIMIT);
        r.server.p99Micros = 3_000L;
        assertThat(bound(r)).isEqualTo(SuiteOutcome.Bound.OUTSIDE_SERVER);
    }

    @Test
    void clientsOnTimeButShortOfResponsesMeanTheServerDidNotAnswerTheRate() {
        RunResult r = result(Verdict.Invalid, 2_000_000, 1_000, 600);
        r.reasons.add("client-0 achieved 600.0 req/s of the 1000.0 req/s it offered");
        assertThat(bound(r)).isEqualTo(SuiteOutcome.Bound.RATE_NOT_ANSWERED);
    }

    @Test
    void failedRequestsAndFailedRunsSayWhat() {
        RunResult r = result(Verdict.Failed, 2_000, 1_000, 1_000);
        r.clients.errors = 3L;
        assertThat(bound(r)).isEqualTo(SuiteOutcome.Bound.ERRORS);
        assertThat(SuiteOutcome.failed("ImagePullBackOff").judge(LIMIT, 0.05))
                .isEqualTo(new SuiteOutcome.Judgement(SuiteOutcome.Bound.RUN_FAILED, "the run failed: ImagePullBackOff"));
    }
}
