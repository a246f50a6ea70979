package dev.pacer.engine.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.api.Quantities;
import dev.pacer.engine.suite.SuiteDocument;
import dev.pacer.engine.suite.SuiteSummary;

/**
 * A suite's report, {@code suite.html} and the text {@code pacer run} prints: the tables of both reference reports
 * (Jetty's integrals at fixed rates with their spread; Chappe's sustained rate under a p99 limit), the comparisons,
 * every run, and per server its p99 against the offered rate.
 */
public final class SuiteReport {
    public static final String FILE_NAME = "suite.html";

    private SuiteReport() {
    }

    public static Path write(SuiteDocument doc, Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        Files.writeString(file, html(doc));
        return file;
    }

    /** The compared series, said with its instrument: one instrument for every server. */
    static String seriesSaid(String series) {
        return series + " series (" + ("processing".equals(series) ? "pacer's agent in the server" : "the kernel probe at the socket")
                + "), every server's integrals and p99 the same series'";
    }

    /** The tables as text, for the terminal. */
    public static String text(SuiteDocument doc) {
        SuiteSummary s = doc.summary();
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "%nsuite %s: %d runs%n", doc.suite(), s.runs().size()));
        if (s.series() != null) {
            text.append("the servers compared by their ").append(seriesSaid(s.series())).append('\n');
        }
        if (s.servers().stream().anyMatch(x -> x.ratePerClient != null)) {
            text.append(String.format(Locale.ROOT, "%n%-24s %10s %6s %30s %12s %18s%n", "server", "rate/client", "runs",
                    "P99 integral ms (interval)", "confidence", "max integral ms"));
            for (BenchmarkSuiteStatus.ServerSummary x : s.servers()) {
                text.append(String.format(Locale.ROOT, "%-24s %10s %6d %30s %12s %18s%n", x.name, Quantities.formatRate(x.ratePerClient),
                        x.repetitions, x.p99IntegralMedianMicros == null ? "-" : ms(x.p99IntegralMedianMicros) + " (" + ms(x.p99IntegralLowMicros)
                                + "–" + ms(x.p99IntegralHighMicros) + ")", x.intervalConfidence == null ? "-" : Math.round(x.intervalConfidence * 100) + " %",
                        ms(x.maxIntegralMedianMicros)));
            }
        } else {
            text.append(String.format(Locale.ROOT, "%n%-24s %22s %12s %12s%n", "server", "sustained req/s/client", "p50 ms", "p99 ms"));
            for (BenchmarkSuiteStatus.ServerSummary x : s.servers()) {
                text.append(String.format(Locale.ROOT, "%-24s %22s %12s %12s%n", x.name,
                        sustained(x), ms(x.p50AtSustainedMicros), ms(x.p99AtSustainedMicros)));
                if (x.confirmation != null) {
                    text.append("  ").append(x.confirmation).append('\n');
                }
            }
        }
        if (s.servers().stream().anyMatch(SuiteReport::hasFootprint)) {
            text.append(String.format(Locale.ROOT, "%n%-24s %10s %10s %14s %14s %16s %10s%n", "footprint", "rate/client", "image MiB",
                    "idle RSS MiB", "peak RSS MiB", "CPU µs/request", "CPUs busy"));
            for (BenchmarkSuiteStatus.ServerSummary x : s.servers()) {
                text.append(String.format(Locale.ROOT, "%-24s %10s %10s %14s %14s %16s %10s%n", x.name, rateOf(x), mib(x.imageBytes),
                        mib(x.idleRssBytes), mib(x.peakRssBytes), decimal(x.cpuMicrosPerRequest, 1), decimal(x.cpuCores, 2)));
            }
        }
        if (!s.comparisons().isEmpty()) {
            text.append('\n');
            s.comparisons().forEach(c -> text.append("  ").append(c).append('\n'));
        }
        return text.toString();
    }

    /** A sweep's sustained rate as printed: "≥" and "(client-bound)" when the clients, not the server, were the limit. */
    static String sustained(BenchmarkSuiteStatus.ServerSummary x) {
        return sustained(x.sustainedRatePerClient, x.clientBound != null);
    }

    /** A sustained rate (per client, or the clients' total) as every report prints it. */
    static String sustained(Long rate, boolean clientBound) {
        if (rate == null) {
            return clientBound ? "none (client-bound)" : "none passed";
        }
        return clientBound ? "≥ " + Quantities.formatRate(rate) + " (client-bound)" : Quantities.formatRate(rate);
    }

    static String html(SuiteDocument doc) {
        SuiteSummary s = doc.summary();
        StringBuilder html = new StringBuilder(HtmlReport.head(doc.suite()));
        html.append("<h1>").append(Html.escape(doc.suite())).append(" <small>suite of ").append(s.runs().size()).append(" runs</small></h1>\n");
        if (s.series() != null) {
            html.append("<p id=\"compared-series\">The servers compared by their ").append(Html.escape(seriesSaid(s.series()))).append(".</p>\n");
        }
        boolean fixed = s.servers().stream().anyMatch(x -> x.ratePerClient != null);
        html.append(fixed ? "<h2>As Jetty publishes it</h2>\n" : "<h2>As the shoot-out publishes it</h2>\n")
                .append(SuiteTables.render(doc, SuiteTables.Format.HTML))
                .append("<p><small>The same table as <code>pacer report --format markdown|csv</code> prints it.</small></p>\n");
        if (fixed) {
            html.append("<h2>Integrals at fixed rates</h2>\n<table id=\"suite-fixed\"><tr><th>server</th><th>rate per client</th><th>runs</th>")
                    .append("<th>P99 integral ms, median</th><th>interval</th><th>confidence</th><th>max integral ms, median</th></tr>\n");
            for (BenchmarkSuiteStatus.ServerSummary x : s.servers()) {
                html.append("<tr><td>").append(Html.escape(x.name)).append("</td>").append(td(Quantities.formatRate(x.ratePerClient)))
                        .append(td(String.valueOf(x.repetitions))).append(td(ms(x.p99IntegralMedianMicros)))
                        .append(td(x.p99IntegralLowMicros == null ? "–" : ms(x.p99IntegralLowMicros) + " – " + ms(x.p99IntegralHighMicros)))
                        .append(td(x.intervalConfidence == null ? "–" : Math.round(x.intervalConfidence * 100) + " %"))
                        .append(td(ms(x.maxIntegralMedianMicros))).append("</tr>\n");
            }
            html.append("</table>\n<p><small>The interval runs from one order statistic of the repetitions to another and covers the median "
                    + "with the confidence given (95 % from 6 repetitions on).</small></p>\n");
        } else {
            html.append("<h2>Sustained rate</h2>\n<table id=\"suite-sweep\"><tr><th>server</th><th>sustained req/s per client</th>")
                    .append("<th>p50 ms there</th><th>p99 ms there</th></tr>\n");
            for (BenchmarkSuiteStatus.ServerSummary x : s.servers()) {
                html.append("<tr><td>").append(Html.escape(x.name)).append("</td>")
                        .append(td(sustained(x)))
                        .append(td(ms(x.p50AtSustainedMicros))).append(td(ms(x.p99AtSustainedMicros))).append("</tr>\n");
            }
            html.append("</table>\n");
            if (s.servers().stream().anyMatch(x -> x.confirmation != null)) {
                html.append("<ul id=\"suite-confirmations\">");
                s.servers().stream().filter(x -> x.confirmation != null)
                        .forEach(x -> html.append("<li>").append(Html.escape(x.name + ": " + x.confirmation)).append("</li>"));
                html.append("</ul>\n");
            }
            PlotChart curve = new PlotChart("p99-by-rate", "Client p99 against offered rate per client", "ms")
                    .xAxis("offered req/s per client");
            s.curves().forEach((server, points) -> {
                List<double[]> xy = new ArrayList<>();
                points.stream().filter(p -> p.clientP99Micros() != null).forEach(p -> xy.add(new double[] {p.ratePerClient(), p.clientP99Micros() / 1000.0}));
                curve.series(server, xy);
            });
            html.append(curve.render());
        }
        if (s.servers().stream().anyMatch(SuiteReport::hasFootprint)) {
            html.append("<h2>Footprint</h2>\n<table id=\"suite-footprint\"><tr><th>server</th><th>rate per client</th><th>image MiB</th>")
                    .append("<th>idle RSS MiB</th><th>peak RSS MiB</th><th>CPU µs per request</th><th>CPUs busy</th></tr>\n");
            for (BenchmarkSuiteStatus.ServerSummary x : s.servers()) {
                html.append("<tr><td>").append(Html.escape(x.name)).append("</td>").append(td(rateOf(x))).append(td(mib(x.imageBytes)))
                        .append(td(mib(x.idleRssBytes))).append(td(mib(x.peakRssBytes))).append(td(decimal(x.cpuMicrosPerRequest, 1)))
                        .append(td(decimal(x.cpuCores, 2))).append("</tr>\n");
            }
            html.append("</table>\n<p><small>Medians over the runs ").append(fixed ? "at each rate" : "at the sustained rate")
                    .append(". Idle: before the load; peak and CPU: in the measured window. Image: as the node lists it.</small></p>\n");
        }
        if (!s.comparisons().isEmpty()) {
            html.append("<h2>Comparisons</h2>\n<ul id=\"suite-comparisons\">");
            s.comparisons().forEach(c -> html.append("<li>").append(Html.escape(c)).append("</li>"));
            html.append("</ul>\n");
        }
        html.append("<h2>Runs</h2>\n<table id=\"suite-runs\"><tr><th>run</th><th>server</th><th>rate per client</th><th>repetition</th>")
                .append("<th>phase</th><th>verdict</th><th>P99 integral ms</th><th>client p99 ms</th><th>achieved req/s</th><th>note</th></tr>\n");
        for (BenchmarkSuiteStatus.SuiteRun r : s.runs()) {
            html.append("<tr><td><a href=\"").append(Html.escape(r.name)).append("/report.html\">").append(Html.escape(r.name)).append("</a></td>")
                    .append(td(r.server)).append(td(Quantities.formatRate(r.ratePerClient))).append(td(String.valueOf(r.repetition)))
                    .append(td(r.phase)).append(td(r.verdict)).append(td(ms(r.p99IntegralMicros))).append(td(ms(r.clientP99Micros)))
                    .append(td(r.achievedRate == null ? "–" : String.format(Locale.ROOT, "%.0f", r.achievedRate)))
                    .append(td(r.passed == null ? r.reason : (r.passed ? "passed" : "not passed: " + r.reason))).append("</tr>\n");
        }
        html.append("</table>\n").append(PlotChart.library()).append("</body></html>\n");
        return html.toString();
    }

    private static boolean hasFootprint(BenchmarkSuiteStatus.ServerSummary x) {
        return x.idleRssBytes != null || x.peakRssBytes != null || x.cpuMicrosPerRequest != null || x.imageBytes != null;
    }

    private static String rateOf(BenchmarkSuiteStatus.ServerSummary x) {
        Long rate = x.ratePerClient != null ? x.ratePerClient : x.sustainedRatePerClient;
        return rate == null ? "-" : Quantities.formatRate(rate);
    }

    private static String mib(Long bytes) {
        return bytes == null ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }

    private static String decimal(Double value, int decimals) {
        return value == null ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String td(String value) {
        return "<td>" + Html.escape(value == null ? "–" : value) + "</td>";
    }

    private static String ms(Long micros) {
        return micros == null ? "-" : String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }
}
