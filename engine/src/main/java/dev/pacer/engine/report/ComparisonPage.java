package dev.pacer.engine.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.pacer.engine.analysis.PeriodPoint;

/**
 * {@code pacer compare --html FILE}: the runs overlaid, self-contained like a report. The comparison's text, the
 * percentile spectra of the servers and of the clients, and the server's P99 per period, each run a series named
 * "N: run" in the order given (the first is the baseline).
 */
public final class ComparisonPage {
    private ComparisonPage() {
    }

    public static Path write(List<ResultDocument> runs, String comparisonText, Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, render(runs, comparisonText), StandardCharsets.UTF_8);
        return file;
    }

    public static String render(List<ResultDocument> runs, String comparisonText) {
        StringBuilder html = new StringBuilder(HtmlReport.head("comparison"));
        html.append("<h1>Comparison <small>").append(runs.size()).append(" runs, the first the baseline</small></h1>\n<pre id=\"comparison\">")
                .append(Html.escape(comparisonText)).append("</pre>\n");
        PlotChart servers = new PlotChart("spectrum-server", "Server latency by percentile over each run's window", "ms").percentileAxis().logY();
        PlotChart clients = new PlotChart("spectrum-clients", "Client response time by percentile (from intended send time)", "ms").percentileAxis().logY();
        PlotChart periods = new PlotChart("server-p99", "Server P99 per period", "ms").xAxis("seconds into the window");
        int withSpectra = 0;
        for (int i = 0; i < runs.size(); i++) {
            ResultDocument run = runs.get(i);
            String name = (i + 1) + ": " + run.run();
            if (run.spectra() != null && !run.spectra().isEmpty()) {
                withSpectra++;
                run.spectra().forEach((role, points) -> {
                    List<double[]> xy = points.stream().map(p -> new double[] {p.percentile(), p.valueMicros() / 1000.0}).toList();
                    if (role.startsWith("server")) {
                        servers.series(name + (role.equals("server") ? "" : " " + role), xy);
                    } else {
                        clients.series(name + " " + role, xy);
                    }
                });
            }
            List<double[]> p99 = new ArrayList<>();
            long start = run.window() == null ? 0 : run.window().startEpochMs;
            for (PeriodPoint p : run.periods()) {
                if (p.server() != null) {
                    p99.add(new double[] {(p.startEpochMs() - start) / 1000.0, p.server().p99Micros() / 1000.0});
                }
            }
            periods.series(name, p99);
        }
        if (withSpectra > 0) {
            html.append("<h2>Percentile spectra</h2>\n").append(servers.render()).append(clients.render());
        } else {
            html.append("<p>No spectra: the runs were read from their statuses; <code>pacer fetch</code> gives their whole results.</p>\n");
        }
        html.append("<h2>Per period</h2>\n").append(periods.render());
        html.append(PlotChart.library()).append("</body></html>\n");
        return html.toString();
    }
}
