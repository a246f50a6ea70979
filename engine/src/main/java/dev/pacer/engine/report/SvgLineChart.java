package dev.pacer.engine.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small self-contained SVG line chart: x in seconds (or percentiles on a log scale), one polyline per series, axes
 * with five ticks. Each chart
 * carries {@code data-points} (the number of points drawn) so that a browser test can check that it drew data.
 */
final class SvgLineChart {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    private static final int WIDTH = 760;
    private static final int HEIGHT = 260;
    private static final int LEFT = 64;
    private static final int RIGHT = 150;
    private static final int TOP = 28;
    private static final int BOTTOM = 36;

    private final String id;
    private final String title;
    private final String yUnit;
    private final Map<String, List<double[]>> series = new LinkedHashMap<>();
    private boolean percentileAxis;

    SvgLineChart(String id, String title, String yUnit) {
        this.id = id;
        this.title = title;
        this.yUnit = yUnit;
    }

    SvgLineChart series(String name, List<double[]> xyPoints) {
        series.put(name, xyPoints);
        return this;
    }

    /**
     * x is a percentile (0–100), drawn on HdrHistogram's {@code 1/(1-p)} log scale: 90 %, 99 %, 99.9 % … equally
     * spaced, so that the tail gets the room it deserves.
     */
    SvgLineChart percentileAxis() {
        percentileAxis = true;
        return this;
    }

    private double x(double value) {
        return percentileAxis ? Math.log10(1 / (1 - Math.min(value, 99.9999) / 100)) : value;
    }

    String render() {
        double maxX = 1;
        double maxY = 0;
        int points = 0;
        for (List<double[]> xy : series.values()) {
            for (double[] p : xy) {
                maxX = Math.max(maxX, x(p[0]));
                maxY = Math.max(maxY, p[1]);
                points++;
            }
        }
        maxY = niceCeiling(maxY);
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg id=\"%s\" class=\"plot\" data-points=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                id, points, WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" class=\"title\">%s</text>%n", LEFT, Html.escape(title)));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>%n", LEFT, TOP, plotWidth, plotHeight));
        for (int i = 0; i <= 4; i++) {
            double value = maxY * i / 4;
            double y = TOP + plotHeight - plotHeight * i / 4.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", LEFT, LEFT + plotWidth, y, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>%n", LEFT - 6, y + 4, format(value)));
            if (!percentileAxis) {
                double xValue = maxX * i / 4;
                double x = LEFT + plotWidth * i / 4.0;
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s s</text>%n", x, TOP + plotHeight + 16, format(xValue)));
            }
        }
        if (percentileAxis) {
            String[] labels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"};
            maxX = Math.max(1, Math.ceil(maxX));
            for (int decade = 0; decade <= maxX && decade < labels.length; decade++) {
                double x = LEFT + plotWidth * decade / maxX;
                svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>", x, x, TOP, TOP + plotHeight));
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>%n", x, TOP + plotHeight + 16, labels[decade]));
            }
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" class=\"tick\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>%n",
                TOP + plotHeight / 2, TOP + plotHeight / 2, Html.escape(yUnit)));
        int index = 0;
        for (Map.Entry<String, List<double[]>> entry : series.entrySet()) {
            String color = COLORS[index % COLORS.length];
            StringBuilder coordinates = new StringBuilder();
            for (double[] p : entry.getValue()) {
                double x = LEFT + plotWidth * x(p[0]) / maxX;
                double y = TOP + plotHeight - (maxY == 0 ? 0 : plotHeight * p[1] / maxY);
                coordinates.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            svg.append(String.format(Locale.ROOT, "<polyline class=\"series\" data-series=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>%n",
                    Html.escape(entry.getKey()), color, coordinates.toString().trim()));
            int legendY = TOP + 12 + 16 * index;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>", WIDTH - RIGHT + 10, WIDTH - RIGHT + 26, legendY, legendY, color));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>%n", WIDTH - RIGHT + 30, legendY + 4, Html.escape(entry.getKey())));
            index++;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static double niceCeiling(double value) {
        if (value <= 0) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String format(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e9) {
            return String.format(Locale.ROOT, "%d", (long) value);
        }
        return String.format(Locale.ROOT, value < 10 ? "%.2f" : "%.1f", value);
    }
}
