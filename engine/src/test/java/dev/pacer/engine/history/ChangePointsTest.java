package dev.pacer.engine.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * The change point search against series whose truth is known (docs/history.md quotes the rates these measure). The
 * spread is the standard deviation of the logs of a run's figures from run to run: 1.5 %, so that the 5 % step is 3.3
 * spreads and the 10 % step 6.7 (where a step can be placed within ±1 run at all: docs/history.md). The system property
 * {@code pacer.history.spread} measures the same at another spread (the bounds asserted are those of 1.5 %).
 */
class ChangePointsTest {
    static final double SPREAD = Double.parseDouble(System.getProperty("pacer.history.spread", "0.015"));
    static final int RUNS = 60;
    static final int SERIES = 400;
    static final ChangePointParameters PARAMETERS = ChangePointParameters.DEFAULTS;

    static SeriesHistory analyse(List<HistoryPoint> points) {
        return new HistoryAnalysis(PARAMETERS).analyseSeries(points, List.of());
    }

    static List<SeriesHistory.Change> of(SeriesHistory history, Figure figure) {
        return history.changes().stream().filter(c -> c.figure() == figure).toList();
    }

    static int index(String run) {
        return Integer.parseInt(run.substring("run-".length()));
    }

    @Test
    void noiseAloneReportsAConfirmedChangeInAtMostOnePercentOfSeries() {
        int withChange = 0;
        for (int s = 0; s < SERIES; s++) {
            SeriesHistory history = analyse(new SyntheticSeries(s, RUNS, SPREAD).points());
            if (history.changes().stream().anyMatch(c -> c.status() == SeriesHistory.Status.confirmed)) {
                withChange++;
            }
        }
        System.out.printf(Locale.ROOT, "noise only: %d of %d series with a confirmed change%n", withChange, SERIES);
        assertThat(withChange).isLessThanOrEqualTo(SERIES / 100);
    }

    @Test
    void stepsOfFiveAndTenPercentAreFoundWithinOneRunOfWhereTheyWere() {
        List<Integer> founds = new ArrayList<>();
        for (double step : new double[] {1.05, 1.10}) {
            int found = 0;
            for (int s = 0; s < SERIES; s++) {
                int at = 20 + s % 20;
                SeriesHistory history = analyse(new SyntheticSeries(1000 + s, RUNS, SPREAD).step(at, step).points());
                if (of(history, Figure.p99Integral).stream().anyMatch(c -> c.status() == SeriesHistory.Status.confirmed
                        && Math.abs(index(c.firstRun()) - at) <= 1 && c.regression())) {
                    found++;
                }
            }
            System.out.printf(Locale.ROOT, "step ×%.2f: found within ±1 run in %d of %d series%n", step, found, SERIES);
            founds.add(found);
        }
        assertThat(founds).as("steps ×1.05 and ×1.10").allSatisfy(found -> assertThat(found).isGreaterThanOrEqualTo(SERIES * 95 / 100));
    }

    /** As runs arrive: after how many runs past a step of 10 % the change is confirmed, in 95 % of the series. */
    @Test
    void aTenPercentStepIsConfirmedWithinTheStatedRunsAfterIt() {
        int stated = 10;
        List<Integer> delays = new ArrayList<>();
        for (int s = 0; s < 100; s++) {
            int at = 30;
            List<HistoryPoint> points = new SyntheticSeries(3000 + s, RUNS, SPREAD).step(at, 1.10).points();
            HistoryAnalysis analysis = new HistoryAnalysis(PARAMETERS);
            int delay = Integer.MAX_VALUE;
            for (int end = at + 1; end <= RUNS; end++) {
                SeriesHistory history = analysis.analyseSeries(points.subList(0, end), List.of());
                if (of(history, Figure.p99Integral).stream().anyMatch(c -> c.status() == SeriesHistory.Status.confirmed
                        && Math.abs(index(c.firstRun()) - at) <= 1)) {
                    delay = end - at;
                    break;
                }
            }
            delays.add(delay);
        }
        delays.sort(null);
        System.out.printf(Locale.ROOT, "×1.10 step confirmed after %d runs (median), %d (95th percentile)%n", delays.get(50), delays.get(94));
        assertThat(delays.get(94)).isLessThanOrEqualTo(stated);
    }

    @Test
    void aThreeTimesSpikeIsAnOutlierNotAChange() {
        for (int s = 0; s < 50; s++) {
            SeriesHistory history = analyse(new SyntheticSeries(5000 + s, RUNS, SPREAD).spike(30, 3).points());
            assertThat(history.outliers().get(Figure.p99Integral)).contains("run-030");
            assertThat(history.changes()).as("seed %d", 5000 + s).noneMatch(c -> c.status() == SeriesHistory.Status.confirmed);
        }
    }

    @Test
    void twoStepsCloseTogetherAreBothFound() {
        int both = 0;
        for (int s = 0; s < 100; s++) {
            SeriesHistory history = analyse(new SyntheticSeries(6000 + s, RUNS, SPREAD).step(25, 1.10).step(32, 1.10).points());
            List<Integer> at = of(history, Figure.p99Integral).stream().map(c -> index(c.firstRun())).toList();
            if (at.stream().anyMatch(i -> Math.abs(i - 25) <= 1) && at.stream().anyMatch(i -> Math.abs(i - 32) <= 1)) {
                both++;
            }
        }
        System.out.printf(Locale.ROOT, "two ×1.10 steps 7 runs apart: both found in %d of 100%n", both);
        assertThat(both).isGreaterThanOrEqualTo(95);
    }

    @Test
    void aShiftOfTheTailAloneIsFoundByTheDistributionTestAlone() {
        int found = 0;
        for (int s = 0; s < 100; s++) {
            SeriesHistory history = analyse(new SyntheticSeries(7000 + s, RUNS, SPREAD).tailShift(30, 1.10).points());
            assertThat(history.changes()).as("seed %d: no single figure moved", 7000 + s)
                    .noneMatch(c -> c.figure() != Figure.spectrum && c.status() == SeriesHistory.Status.confirmed);
            if (of(history, Figure.spectrum).stream().anyMatch(c -> Math.abs(index(c.firstRun()) - 30) <= 1
                    && List.of("p99.9", "p99.99", "max").contains(c.percentile()) && c.regression())) {
                found++;
            }
        }
        System.out.printf(Locale.ROOT, "tail-only ×1.10 shift: found by the spectrum in %d of 100%n", found);
        assertThat(found).isGreaterThanOrEqualTo(95);
    }

    @Test
    void analysingAsRunsArriveEqualsAnalysingAfresh() {
        List<HistoryPoint> points = new SyntheticSeries(8000, 90, SPREAD).step(25, 1.10).spike(40, 3).step(60, 0.9).points();
        HistoryAnalysis incremental = new HistoryAnalysis(PARAMETERS);
        for (int end = 1; end <= points.size(); end++) {
            SeriesHistory step = incremental.analyseSeries(points.subList(0, end), List.of());
            SeriesHistory fresh = analyse(points.subList(0, end));
            assertThat(step.changes()).as("after %d runs", end).isEqualTo(fresh.changes());
            assertThat(step.outliers()).isEqualTo(fresh.outliers());
        }
        SeriesHistory last = incremental.analyseSeries(points, List.of());
        assertThat(of(last, Figure.p99Integral)).extracting(c -> index(c.firstRun())).containsExactly(25, 60);
        assertThat(last.outliers().get(Figure.p99Integral)).contains("run-040");
    }

    /** An acknowledgement made after the analysis, applied to it, gives what analysing again with it gives. */
    @Test
    void anAcknowledgementAppliedLaterEqualsAnalysingAgainWithIt() {
        List<HistoryPoint> points = new SyntheticSeries(8100, 60, SPREAD).step(30, 1.10).points();
        SeriesHistory before = analyse(points);
        SeriesHistory.Change regression = of(before, Figure.p99Integral).stream().filter(SeriesHistory.Change::alerts).findFirst().orElseThrow();
        List<Acknowledgement> acknowledged = List.of(new Acknowledgement(regression.series(), Figure.p99Integral, regression.firstRun(), "expected"),
                new Acknowledgement("another-series", Figure.p99Integral, regression.firstRun(), null));
        SeriesHistory later = before.acknowledgedBy(acknowledged);
        assertThat(later).isEqualTo(new HistoryAnalysis(PARAMETERS).analyseSeries(points, acknowledged));
        assertThat(later.alerting()).doesNotContain(regression).hasSize(before.alerting().size() - 1);
        assertThat(later.acknowledgedBy(List.of())).as("an acknowledgement taken back alerts again").isEqualTo(before);
    }
}
