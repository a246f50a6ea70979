package dev.pacer.engine.history;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.analysis.PercentileSpectrum;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.engine.report.RunManifest;

/**
 * One finished run as a point of its series: who it was, when its window ended, the server build it measured, its
 * headline figures and its server's percentile spectrum. A run whose verdict is Invalid is no point (its figures are
 * not the server's: the client could not keep up, or periods are missing), nor is one without server figures.
 *
 * @param run          the run's name
 * @param endEpochMs   end of its measured window: the series' order
 * @param serverImage  the server's image reference as run
 * @param serverDigest the image digest its node ran, or the reference when the platform did not say
 * @param verdict      Passed or Failed
 * @param figures      the values of {@link Figure#p99Integral}, {@link Figure#maxIntegral}, {@link Figure#achievedRate}
 *                     and {@link Figure#errors}, in their units (microseconds, requests per second, requests)
 * @param spectrumMicros the server's values at {@link #SPECTRUM_PERCENTILES}, the last its maximum
 */
public record HistoryPoint(String run, long endEpochMs, SeriesKey series, String serverImage, String serverDigest, Verdict verdict,
                           Map<Figure, Double> figures, double[] spectrumMicros) {
    /** The percentiles the spectrum's test compares, the maximum (100) last. */
    public static final double[] SPECTRUM_PERCENTILES = {50, 90, 99, 99.9, 99.99, 100};

    /** The point of a result, or empty with the reason it is none. */
    public static Optional<HistoryPoint> of(ResultDocument document) {
        return Optional.ofNullable(reasonNotAPoint(document) == null ? point(document) : null);
    }

    /** Why a result is not a point of any series, or {@code null} when it is one. */
    public static String reasonNotAPoint(ResultDocument document) {
        RunResult result = document.result();
        if (document.manifest() == null || document.manifest().plan() == null) {
            return "no manifest (written by an older pacer)";
        }
        if (result == null || result.verdict == null || result.window == null || result.window.endEpochMs == null) {
            return "no result";
        }
        if (result.verdict == Verdict.Invalid) {
            return "verdict Invalid: its figures are not the server's";
        }
        if (result.server == null || result.server.p99IntegralMicros == null || result.server.maxIntegralMicros == null
                || result.clients == null || result.clients.achievedRate == null) {
            return "no server figures";
        }
        List<PercentileSpectrum.Point> spectrum = document.spectra() == null ? null : document.spectra().get("server");
        if (spectrum == null || result.server.maxMicros == null) {
            return "no server spectrum";
        }
        return null;
    }

    private static HistoryPoint point(ResultDocument document) {
        RunResult result = document.result();
        Map<Figure, Double> figures = new EnumMap<>(Figure.class);
        figures.put(Figure.p99Integral, result.server.p99IntegralMicros.doubleValue());
        figures.put(Figure.maxIntegral, result.server.maxIntegralMicros.doubleValue());
        figures.put(Figure.achievedRate, result.clients.achievedRate);
        figures.put(Figure.errors, result.clients.errors == null ? 0.0 : result.clients.errors.doubleValue());
        List<PercentileSpectrum.Point> points = document.spectra().get("server");
        double[] spectrum = new double[SPECTRUM_PERCENTILES.length];
        for (int i = 0; i < SPECTRUM_PERCENTILES.length - 1; i++) {
            double percentile = SPECTRUM_PERCENTILES[i];
            spectrum[i] = points.stream().filter(p -> p.percentile() == percentile).findFirst()
                    .or(() -> points.stream().filter(p -> p.percentile() >= percentile).findFirst())
                    .map(PercentileSpectrum.Point::valueMicros).orElse(result.server.maxMicros);
        }
        spectrum[spectrum.length - 1] = result.server.maxMicros;
        RunManifest.Role server = document.manifest().roles() == null ? null : document.manifest().roles().get("server");
        String image = server != null && server.image() != null ? server.image() : String.valueOf(document.manifest().plan().get("server") instanceof Map<?, ?> s ? s.get("image") : null);
        String digest = server != null && server.imageId() != null ? server.imageId() : image;
        return new HistoryPoint(document.run(), result.window.endEpochMs, SeriesKey.of(document.manifest()), image, digest,
                result.verdict, figures, spectrum);
    }

    /** The value the change point search reads: the log of the figure (of 1 + errors), or of each spectrum value. */
    public double[] logValues(Figure figure) {
        if (figure == Figure.spectrum) {
            double[] logs = new double[spectrumMicros.length];
            for (int i = 0; i < logs.length; i++) {
                logs[i] = Math.log(Math.max(1, spectrumMicros[i]));
            }
            return logs;
        }
        double value = figures.get(figure);
        return new double[] {figure == Figure.errors ? Math.log1p(value) : Math.log(Math.max(value, 1e-9))};
    }

    /** The raw value a change's size is stated in: the figure, or the spectrum's value at one of its percentiles. */
    public double value(Figure figure, int dimension) {
        return figure == Figure.spectrum ? spectrumMicros[dimension] : figures.get(figure);
    }
}
