package dev.pacer.engine.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A line chart of a report, drawn in the browser by uPlot (inlined with {@link #library()}, so the page stays
 * self-contained and offline): drag to zoom, double-click to reset, the legend shows the values under the cursor, a
 * click on a series' legend entry hides or shows it. The page holds each chart's data as JSON in the chart's element;
 * {@code plots.js} draws them.
 */
final class PlotChart {
    private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final String title;
    private final String unit;
    private final Map<String, List<double[]>> series = new LinkedHashMap<>();
    private String xAxis = "seconds";
    private boolean logY;

    PlotChart(String id, String title, String unit) {
        this.id = id;
        this.title = title;
        this.unit = unit;
    }

    PlotChart series(String name, List<double[]> xyPoints) {
        series.put(name, xyPoints);
        return this;
    }

    /**
     * x is a percentile (0–100), drawn on HdrHistogram's {@code 1/(1-p)} log scale: 90 %, 99 %, 99.9 % … equally
     * spaced, so that the tail gets the room it deserves.
     */
    PlotChart percentileAxis() {
        xAxis = "percentile";
        return this;
    }

    /** x is something other than seconds into the window, named so on the axis. */
    PlotChart xAxis(String label) {
        xAxis = label;
        return this;
    }

    /** Latencies spanning decades (min to max): a log y axis. */
    PlotChart logY() {
        logY = true;
        return this;
    }

    String render() {
        List<Map<String, Object>> lines = new ArrayList<>();
        series.forEach((name, points) -> {
            List<double[]> sorted = new ArrayList<>(points == null ? List.of() : points);
            sorted.sort(Comparator.comparingDouble(p -> p[0]));   // uPlot aligns the series on ascending x
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("label", name);
            line.put("points", sorted);
            lines.add(line);
        });
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("title", title);
        spec.put("unit", unit);
        spec.put("x", xAxis);
        spec.put("logY", logY);
        spec.put("series", lines);
        int points = lines.stream().mapToInt(l -> ((List<?>) l.get("points")).size()).sum();
        try {
            // "</" cannot appear inside the script element: JSON allows escaping its slash
            String json = JSON.writeValueAsString(spec).replace("</", "<\\/");
            return "<div class=\"plot\" id=\"" + Html.escape(id) + "\" data-points=\"" + points + "\"><script type=\"application/json\" class=\"plot-spec\">"
                    + json + "</script></div>\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** uPlot's style and script, and pacer's drawing script: once per page, after the charts. */
    static String library() {
        return "<style>" + resource(UPLOT + "uPlot.min.css") + ".plot{margin:10px 0 24px}</style>\n<script>" + resource(UPLOT + "uPlot.iife.min.js")
                + "</script>\n<script>" + resource("dev/pacer/engine/report/plots.js") + "</script>\n";
    }

    private static String resource(String path) {
        try (InputStream in = PlotChart.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the classpath (the uPlot webjar is a dependency of pacer-engine)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
