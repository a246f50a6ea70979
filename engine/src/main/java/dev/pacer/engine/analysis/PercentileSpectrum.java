package dev.pacer.engine.analysis;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The percentile spectrum of a role over the measured window (every period of the window merged): the curve latency
 * engineers read first, value against percentile on a {@code 1/(1-p)} scale, and HdrHistogram's own percentile
 * distribution text ({@code .hgrm}).
 *
 * @param points     percentile (0–100) → value in microseconds, from HdrHistogram's percentile iteration, with the
 *                   exact p50, p99, p99.9 and p99.99 among them
 * @param hgrm       {@link Histogram#outputPercentileDistribution} of the window, values in microseconds
 */
public record PercentileSpectrum(List<Point> points, String hgrm) {
    /** Percentiles the spectrum always holds exactly: the ones the result reports. */
    public static final double[] MARKED = {50, 90, 99, 99.9, 99.99};
    private static final int TICKS_PER_HALF_DISTANCE = 5;
    private static final double NANOS_PER_MICRO = 1_000.0;

    /** One point of the curve. */
    public record Point(double percentile, long valueMicros) {
    }

    /** The spectrum of the periods that lie in the window; {@code null} when they hold no value. */
    public static PercentileSpectrum of(List<PeriodHistogram> periods, AnalysisInput window) {
        List<PeriodHistogram> kept = Analysis.inWindow(periods, window);
        if (kept.isEmpty()) {
            return null;
        }
        Histogram merged = new Histogram(kept.getFirst().histogram().getHighestTrackableValue(),
                kept.getFirst().histogram().getNumberOfSignificantValueDigits());
        merged.setAutoResize(true);
        kept.forEach(p -> merged.add(p.histogram()));
        if (merged.getTotalCount() == 0) {
            return null;
        }
        List<Point> points = new ArrayList<>();
        for (HistogramIterationValue v : merged.percentiles(TICKS_PER_HALF_DISTANCE)) {
            if (v.getPercentileLevelIteratedTo() < 100.0) {
                points.add(new Point(v.getPercentileLevelIteratedTo(), Integrals.toMicros(v.getValueIteratedTo())));
            }
        }
        for (double p : MARKED) {
            points.add(new Point(p, Integrals.toMicros(merged.getValueAtPercentile(p))));
        }
        points.sort(Comparator.comparingDouble(Point::percentile));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            merged.outputPercentileDistribution(out, TICKS_PER_HALF_DISTANCE, NANOS_PER_MICRO);
        }
        return new PercentileSpectrum(dedupe(points), text.toString(StandardCharsets.UTF_8));
    }

    /** The value at a percentile the spectrum holds exactly ({@link #MARKED}), microseconds. */
    public long at(double percentile) {
        return points.stream().filter(p -> p.percentile() == percentile).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no point at " + percentile)).valueMicros();
    }

    /** Every role's spectrum: the server's, and each client's response time from the intended send time. */
    public static Map<String, PercentileSpectrum> ofRun(AnalysisInput input) {
        Map<String, PercentileSpectrum> spectra = new LinkedHashMap<>();
        input.serverPeriods().map(periods -> of(periods, input)).ifPresent(s -> spectra.put("server", s));
        input.serverMeasure().otherSeries().forEach((name, periods) -> {
            PercentileSpectrum s = of(periods, input);
            if (s != null) {
                spectra.put("server." + name, s);   // server.residence, server.probe.service, …
            }
        });
        for (AnalysisInput.ClientInput client : input.clients()) {
            PercentileSpectrum s = of(client.responseTimePeriods(), input);
            if (s != null) {
                spectra.put(client.name(), s);
            }
        }
        return spectra;
    }

    private static List<Point> dedupe(List<Point> sorted) {
        List<Point> result = new ArrayList<>();
        for (Point p : sorted) {
            if (result.isEmpty() || result.getLast().percentile() != p.percentile()) {
                result.add(p);
            }
        }
        return result;
    }
}
