package dev.pacer.engine.history;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.pacer.api.Verdict;

/**
 * Series whose truth is known, from a seeded generator: each figure log-normal around its level with the run-to-run
 * spread given, and steps, spikes or tail shifts put in where a test says.
 */
final class SyntheticSeries {
    static final SeriesKey KEY = new SeriesKey("synthetic", "synthetic", Map.of());
    /** The spectrum's levels, µs, at p50, p90, p99, p99.9, p99.99 and max. */
    static final double[] SPECTRUM_MICROS = {100, 200, 800, 2_000, 4_000, 8_000};

    /** Run-to-run spread of the latency figures, as a standard deviation of their logs. */
    final double spread;
    final Random random;
    /** Per run and figure, the factor applied to its level (1: none). */
    final double[] p99Factor;
    final double[] maxFactor;
    final double[][] spectrumFactor;

    SyntheticSeries(long seed, int runs, double spread) {
        this.spread = spread;
        this.random = new Random(seed);
        p99Factor = ones(runs);
        maxFactor = ones(runs);
        spectrumFactor = new double[runs][];
        for (int i = 0; i < runs; i++) {
            spectrumFactor[i] = ones(SPECTRUM_MICROS.length);
        }
    }

    /** The latency figures and the whole spectrum {@code factor} times higher from run {@code at} on. */
    SyntheticSeries step(int at, double factor) {
        for (int i = at; i < p99Factor.length; i++) {
            p99Factor[i] *= factor;
            maxFactor[i] *= factor;
            for (int d = 0; d < SPECTRUM_MICROS.length; d++) {
                spectrumFactor[i][d] *= factor;
            }
        }
        return this;
    }

    /** One run's latency figures and spectrum {@code factor} times higher. */
    SyntheticSeries spike(int at, double factor) {
        p99Factor[at] *= factor;
        maxFactor[at] *= factor;
        for (int d = 0; d < SPECTRUM_MICROS.length; d++) {
            spectrumFactor[at][d] *= factor;
        }
        return this;
    }

    /** Only the spectrum's tail (p99.9, p99.99 and max) {@code factor} times higher from run {@code at} on. */
    SyntheticSeries tailShift(int at, double factor) {
        for (int i = at; i < p99Factor.length; i++) {
            for (int d = 3; d < SPECTRUM_MICROS.length; d++) {
                spectrumFactor[i][d] *= factor;
            }
        }
        return this;
    }

    List<HistoryPoint> points() {
        List<HistoryPoint> points = new ArrayList<>();
        for (int i = 0; i < p99Factor.length; i++) {
            Map<Figure, Double> figures = new EnumMap<>(Figure.class);
            figures.put(Figure.p99Integral, 10_000 * p99Factor[i] * noise());
            figures.put(Figure.maxIntegral, 60_000 * maxFactor[i] * noise());
            figures.put(Figure.achievedRate, 40_000 * Math.exp(0.001 * random.nextGaussian()));
            figures.put(Figure.errors, 0.0);
            double[] spectrum = new double[SPECTRUM_MICROS.length];
            for (int d = 0; d < spectrum.length; d++) {
                spectrum[d] = SPECTRUM_MICROS[d] * spectrumFactor[i][d] * noise();
            }
            points.add(new HistoryPoint("run-" + String.format("%03d", i), 1_000_000L * i, KEY, "server:" + (i / 10), "sha256:" + (i / 10),
                    Verdict.Passed, figures, spectrum));
        }
        return points;
    }

    private double noise() {
        return Math.exp(spread * random.nextGaussian());
    }

    private static double[] ones(int n) {
        double[] values = new double[n];
        java.util.Arrays.fill(values, 1);
        return values;
    }
}
