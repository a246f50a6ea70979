package dev.pacer.engine.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.RunResult;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class PercentileSpectrumTest {

    /** Periods of 1 000 values: 1 µs … 1 ms, one of them far out, so that the tail has a shape. */
    static List<PeriodHistogram> periods(long start, int count) {
        List<PeriodHistogram> periods = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Histogram h = new Histogram(60_000_000_000L, 3);
            for (int v = 1; v <= 1_000; v++) {
                h.recordValue(v * 1_000L);
            }
            h.recordValue(50_000_000L + i);
            periods.add(new PeriodHistogram(start + i * 1000L, start + (i + 1) * 1000L, h));
        }
        return periods;
    }

    @Test
    void theSpectrumHoldsTheResultsOwnPercentilesAndRisesToTheTail() {
        long t0 = 1_800_000_000_000L;
        List<PeriodHistogram> server = periods(t0 - 1000, 7);   // one period of warm-up, one after the window
        AnalysisInput input = new AnalysisInput(t0, t0 + 5000, 1000, Optional.of(server), null,
                List.of(new AnalysisInput.ClientInput("client-0", 1001, periods(t0, 5), periods(t0, 5), 0, null)),
                AnalysisInput.Criteria.DEFAULT);
        RunResult result = Analysis.analyze(input).result();
        Map<String, PercentileSpectrum> spectra = PercentileSpectrum.ofRun(input);
        PercentileSpectrum spectrum = spectra.get("server");
        assertThat(spectrum.at(50)).isEqualTo(result.server.p50Micros);
        assertThat(spectrum.at(99)).isEqualTo(result.server.p99Micros);
        assertThat(spectrum.at(99.9)).isEqualTo(result.server.p999Micros);
        assertThat(spectrum.points()).isSortedAccordingTo(Comparator.comparingDouble(PercentileSpectrum.Point::percentile));
        assertThat(spectrum.points()).extracting(PercentileSpectrum.Point::valueMicros).isSorted();
        assertThat(spectrum.points().getLast().valueMicros()).as("the outliers of the window's periods").isGreaterThan(45_000);
        assertThat(spectrum.hgrm()).contains("1/(1-Percentile)").contains("#[Max     =");
        assertThat(spectra).containsOnlyKeys("server", "client-0");
    }
}
