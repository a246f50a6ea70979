package dev.pacer.engine.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.pacer.api.Measure;
import dev.pacer.api.RunResult;
import dev.pacer.engine.analysis.PeriodPoint;

/**
 * {@code report.html}: one self-contained page (inline CSS and script, no network) with the verdict and its reasons, the
 * integrals, and interactive plots ({@link PlotChart}): the percentile spectrum, and over the measured window server
 * min/p99/max per period (Jetty's chart) and its percentiles without the max, CPU, pauses and memory, client response-time
 * percentiles per period, achieved rate per client, and send lag per client.
 */
public final class HtmlReport {
    public static final String FILE_NAME = "report.html";

    private HtmlReport() {
    }

    public static Path write(ResultDocument document, Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        Files.writeString(file, render(document), StandardCharsets.UTF_8);
        return file;
    }

    public static String render(ResultDocument doc) {
        RunResult r = doc.result();
        StringBuilder html = new StringBuilder();
        html.append(head(doc.run()));
        html.append("<h1>").append(Html.escape(doc.run())).append(" <small>").append(Html.escape(doc.load())).append("</small></h1>\n");
        Object image = doc.server() == null ? null : doc.server().get("image");
        html.append("<p>Server <code>").append(Html.escape(String.valueOf(image))).append("</code>, measured window ")
                .append(seconds(r.window)).append(" s, sample period ").append(doc.samplePeriodMs()).append(" ms")
                .append(r.warmupExtendedSeconds == null ? "" : ", after a warm-up " + r.warmupExtendedSeconds
                        + " s longer than asked (a client was behind its schedule as it was to end)")
                .append(".</p>\n");
        html.append("<p><span class=\"verdict ").append(r.verdict).append("\" id=\"verdict\">").append(r.verdict).append("</span></p>\n");
        if (!r.reasons.isEmpty()) {
            html.append("<ul id=\"reasons\">");
            r.reasons.forEach(reason -> html.append("<li>").append(Html.escape(reason)).append("</li>"));
            html.append("</ul>\n");
        }
        if (!r.warnings.isEmpty()) {
            html.append("<p>Warnings:</p><ul id=\"warnings\">");
            r.warnings.forEach(w -> html.append("<li>").append(Html.escape(w)).append("</li>"));
            html.append("</ul>\n");
        }
        RunResult.ServerFigures s = r.server;
        html.append("<h2>Server ").append(s == null || s.series == null ? "processing" : Html.escape(s.series)).append(" time</h2>\n");
        if (s != null && s.measuredBy != null) {
            html.append("<p id=\"measured-by\">Measured by ").append(Html.escape(MEASURED_BY.getOrDefault(s.measuredBy, s.measuredBy)))
                    .append(".</p>\n");
        }
        if (s != null && s.histogramsAvailable) {
            html.append("<table id=\"server-figures\"><tr><th>samples</th><th>requests</th><th>P99 integral</th><th>P99 integral (corrected)</th>")
                    .append("<th>max integral</th><th>min</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th></tr><tr>")
                    .append(td(s.samples)).append(td(s.requests)).append(td(ms(s.p99IntegralMicros))).append(td(ms(s.p99IntegralCorrectedMicros)))
                    .append(td(ms(s.maxIntegralMicros))).append(td(ms(s.minMicros))).append(td(ms(s.p50Micros))).append(td(ms(s.p99Micros)))
                    .append(td(ms(s.p999Micros))).append(td(ms(s.maxMicros))).append("</tr></table>\n<p><small>Latencies in ms; integrals are sums over the periods.</small></p>\n");
            if (s.otherSeries != null && !s.otherSeries.isEmpty()) {
                html.append("<table id=\"server-series\"><tr><th>series</th><th>requests</th><th>P99 integral</th><th>p50</th><th>p99</th><th>max</th></tr>\n");
                for (RunResult.SeriesFigures o : s.otherSeries) {
                    html.append("<tr><td>").append(Html.escape(o.name)).append("</td>").append(td(o.requests)).append(td(ms(o.p99IntegralMicros)))
                            .append(td(ms(o.p50Micros))).append(td(ms(o.p99Micros))).append(td(ms(o.maxMicros))).append("</tr>\n");
                }
                html.append("</table>\n<p><small>service: first request byte read → last response byte written; residence: request bytes "
                        + "arrived in the socket → last response byte written, so it adds the wait before the server read (kernel probe).</small></p>\n");
            }
        } else {
            html.append("<p>Server histograms unavailable").append(s != null && s.measuredBy != null && Measure.parse(s.measuredBy).filter(m -> !m.measured()).isPresent() ? ": the server is not measured (measure: none)" : "")
                    .append(".</p>\n");
        }
        html.append(probeLosses(r));
        html.append(footprint(r));
        html.append("<h2>Clients</h2>\n<table id=\"client-figures\"><tr><th>client</th><th>offered req/s</th><th>achieved req/s</th><th>requests</th>")
                .append("<th>errors</th><th>p99 ms</th><th>max ms</th><th>send lag p99 ms</th><th>send lag max ms</th>")
                .append("<th>P99 integral ms (corrected)</th><th>P99 integral ms (uncorrected)</th></tr>\n");
        for (RunResult.ClientFigure c : r.clients.perClient) {
            html.append("<tr>").append("<td>").append(Html.escape(c.name)).append("</td>").append(td(c.offeredRate)).append(td(c.achievedRate))
                    .append(td(c.requests)).append(td(c.errors)).append(td(ms(c.p99Micros))).append(td(ms(c.maxMicros)))
                    .append(td(ms(c.sendLagP99Micros))).append(td(ms(c.sendLagMaxMicros)))
                    .append(td(ms(c.p99IntegralMicros))).append(td(ms(c.p99UncorrectedIntegralMicros))).append("</tr>\n");
        }
        if (r.clients.p99IntegralMicros != null) {
            html.append("<tr id=\"clients-all\"><td>all</td><td colspan=\"8\"></td>").append(td(ms(r.clients.p99IntegralMicros)))
                    .append(td(ms(r.clients.p99UncorrectedIntegralMicros))).append("</tr>\n");
        }
        html.append("</table>\n<p><small>Client P99 integrals: sums over the measured periods of each period's P99; corrected: from each ")
                .append("request's intended send time (coordinated omission corrected), uncorrected: from its actual send time, as ")
                .append("jetty-perf's probe client measures; all: every client's responses of a period together.</small></p>\n");
        if (r.tls != null) {
            RunResult.TlsFigures t = r.tls;
            html.append("<h2>TLS handshakes</h2>\n<table id=\"tls-figures\"><tr><th>clients'</th><th>server's</th><th>per second in the window</th>")
                    .append("<th>client p50 ms</th><th>client p99 ms</th><th>client max ms</th></tr><tr>")
                    .append(td(t.clientHandshakes)).append(td(t.serverHandshakes == null ? "not told" : t.serverHandshakes))
                    .append(td(t.handshakesPerSecond)).append(td(ms(t.clientHandshakeP50Micros))).append(td(ms(t.clientHandshakeP99Micros)))
                    .append(td(ms(t.clientHandshakeMaxMicros))).append("</tr></table>\n<p><small>Over the whole run, warm-up included; a ")
                    .append("handshake is timed from its TCP connection to its end.</small></p>\n");
        }
        html.append(charts(doc));
        html.append(manifest(doc.manifest()));
        html.append("<p><small>Generated by pacer from result.json; raw HdrHistogram interval logs are beside this file.</small></p>\n");
        html.append(PlotChart.library()).append("</body></html>\n");
        return html.toString();
    }

    private static String charts(ResultDocument doc) {
        PeriodAxis axis = new PeriodAxis(doc);
        StringBuilder out = new StringBuilder();
        if (doc.spectra() != null && !doc.spectra().isEmpty()) {
            out.append("<h2>Percentile spectrum</h2>\n");
            PlotChart spectrum = new PlotChart("spectrum", "Latency by percentile over the window (server processing; clients from intended send time)", "ms")
                    .percentileAxis().logY();
            doc.spectra().forEach((role, points) -> spectrum.series(role,
                    points.stream().map(p -> new double[] {p.percentile(), p.valueMicros() / 1000.0}).toList()));
            out.append(spectrum.render());
        }
        out.append("<h2>Per period</h2>\n");
        serverCharts(doc, axis, out);
        usageCharts(doc, axis, out);
        clientCharts(doc, axis, out);
        return out.toString();
    }

    /** A chart's x: seconds from the window's start to a period's end. */
    private record PeriodAxis(long startEpochMs, double periodSeconds) {
        PeriodAxis(ResultDocument doc) {
            this(doc.window() == null ? 0 : doc.window().startEpochMs, doc.samplePeriodMs() / 1000.0);
        }

        double x(PeriodPoint p) {
            return (p.startEpochMs() - startEpochMs) / 1000.0 + periodSeconds;
        }
    }

    /** Named lines of points, in the order they first appear. */
    private static final class Lines {
        final Map<String, List<double[]>> byName = new LinkedHashMap<>();

        void add(String name, double x, double y) {
            byName.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {x, y});
        }

        List<double[]> get(String name) {
            return byName.getOrDefault(name, List.of());
        }

        boolean isEmpty() {
            return byName.isEmpty();
        }

        String render(String id, String title, String unit) {
            PlotChart chart = new PlotChart(id, title, unit);
            byName.forEach(chart::series);
            return chart.render();
        }
    }

    /** The server's main series per period (Jetty's chart, then its percentiles on their own scale), and each series' p99 beside. */
    private static void serverCharts(ResultDocument doc, PeriodAxis axis, StringBuilder out) {
        Lines server = new Lines();
        Lines seriesP99 = new Lines();
        for (PeriodPoint p : doc.periods()) {
            if (p.server() == null) {
                continue;
            }
            double x = axis.x(p);
            server.add("min", x, p.server().minMicros() / 1000.0);
            server.add("p50", x, p.server().p50Micros() / 1000.0);
            server.add("p99", x, p.server().p99Micros() / 1000.0);
            server.add("max", x, p.server().maxMicros() / 1000.0);
            if (p.serverSeries() != null) {
                seriesP99.add("p99", x, p.server().p99Micros() / 1000.0);
                p.serverSeries().forEach((name, stats) -> seriesP99.add(name + " p99", x, stats.p99Micros() / 1000.0));
            }
        }
        if (!server.isEmpty()) {
            out.append(new PlotChart("server-latency", "Server processing time per period: min, p99, max (Jetty's chart)", "ms").logY()
                    .series("min", server.get("min")).series("p99", server.get("p99")).series("max", server.get("max")).render());
            // the max usually dwarfs the rest: the percentiles again on their own scale
            out.append(new PlotChart("server-percentiles", "Server processing time per period: min, p50, p99", "ms")
                    .series("min", server.get("min")).series("p50", server.get("p50")).series("p99", server.get("p99")).render());
        }
        if (!seriesP99.isEmpty()) {
            out.append(seriesP99.render("server-series", "Server series per period: p99 of each", "ms"));
        }
    }

    /** What the processes used per period: CPU (used and wanted), pauses (GC, the clients' stalls), the server's memory. */
    private static void usageCharts(ResultDocument doc, PeriodAxis axis, StringBuilder out) {
        Lines cpu = new Lines();
        Lines memory = new Lines();
        Lines pauses = new Lines();
        for (PeriodPoint p : doc.periods()) {
            double x = axis.x(p);
            Map<String, PeriodPoint.Usage> roles = new LinkedHashMap<>();
            if (p.serverUsage() != null) {
                PeriodPoint.Usage u = p.serverUsage();
                if (u.cpuUtilization() != null) {
                    cpu.add("server used", x, u.cpuUtilization() * 100);
                }
                if (u.cpuDemand() != null) {
                    cpu.add("server wanted", x, u.cpuDemand() * 100);
                }
                memory.add("server RSS", x, u.rssBytes() / 1048576.0);
                memory.add("server peak RSS", x, u.peakRssBytes() / 1048576.0);
                roles.put("server", u);
            }
            if (p.clientUsage() != null) {
                p.clientUsage().forEach((name, u) -> {
                    Double wanted = u.cpuDemand() != null ? u.cpuDemand() : u.cpuUtilization();
                    if (wanted != null) {
                        cpu.add(name + " wanted", x, wanted * 100);
                    }
                });
                roles.putAll(p.clientUsage());
            }
            roles.forEach((role, u) -> {
                if (u.gcPauseMillis() != null) {
                    pauses.add(role + " GC", x, u.gcPauseMillis());
                }
                if (u.maxHiccupMillis() != null) {
                    pauses.add(role + " longest stall", x, u.maxHiccupMillis());
                }
            });
        }
        if (!cpu.isEmpty()) {
            out.append(cpu.render("cpu", "CPU per period, % of each process's CPUs: used, and wanted (used plus waiting; 95 % or more is saturated)", "%"));
        }
        if (!pauses.isEmpty()) {
            out.append(pauses.render("pauses", "Pauses per period: GC time of each JVM, and each client's longest stall "
                    + "(its clock watched at least every 1 ms, or at its wake-up interval when longer)", "ms"));
        }
        if (!memory.isEmpty()) {
            out.append(memory.render("server-memory", "Server resident memory per period", "MiB"));
        }
    }

    /** Each client per period: its response times from the intended send time, its achieved rate, its send lag. */
    private static void clientCharts(ResultDocument doc, PeriodAxis axis, StringBuilder out) {
        Set<String> clientNames = new LinkedHashSet<>();
        Lines latency = new Lines();
        Lines rates = new Lines();
        Lines lags = new Lines();
        for (PeriodPoint p : doc.periods()) {
            double x = axis.x(p);
            p.clients().forEach((name, c) -> {
                clientNames.add(name);
                latency.add(name + " p50", x, c.p50Micros() / 1000.0);
                latency.add(name + " p99", x, c.p99Micros() / 1000.0);
                latency.add(name + " max", x, c.maxMicros() / 1000.0);
                rates.add(name, x, c.count() / axis.periodSeconds());
                lags.add(name, x, c.sendLagP99Micros() / 1000.0);
            });
        }
        PlotChart clientChart = new PlotChart("client-latency", "Client response time per period (from intended send time)", "ms").logY();
        for (String name : clientNames) {
            clientChart.series(name + " p50", latency.get(name + " p50")).series(name + " p99", latency.get(name + " p99"))
                    .series(name + " max", latency.get(name + " max"));
        }
        out.append(clientChart.render());
        out.append(rates.render("achieved-rate", "Achieved rate per client", "responses/s"));
        out.append(lags.render("send-lag", "Send lag P99 per client (late sends mean the client could not keep up)", "ms"));
    }

    /** What the kernel probe could not time, in total and in each period that had any. */
    private static String probeLosses(RunResult r) {
        RunResult.ProbeLosses l = r.server == null ? null : r.server.probeLosses;
        if (l == null) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>What the kernel probe could not time</h2>\n<table id=\"probe-losses\"><tr><th>period</th>")
                .append("<th>dropped</th><th>late</th><th>never read</th><th>read, never answered</th><th>read after the client left</th>")
                .append("<th>orphan writes</th></tr>\n");
        if (l.periods != null) {
            for (RunResult.PeriodLosses p : l.periods) {
                html.append("<tr><td>").append(p.period).append("</td>").append(td(p.droppedRecords)).append(td(p.lateRecords))
                        .append(td(p.neverReadRequests)).append(td(p.abandonedRequests)).append(td(p.readAfterPeerClosed))
                        .append(td(p.orphanWrites)).append("</tr>\n");
            }
        }
        html.append("<tr><th>").append("window".equals(l.scope) ? "window" : "whole run").append("</th>").append(td(l.droppedRecords))
                .append(td(l.lateRecords)).append(td(l.neverReadRequests)).append(td(l.abandonedRequests)).append(td(l.readAfterPeerClosed))
                .append(td(l.orphanWrites)).append("</tr>\n</table>\n<p><small>Of ").append(l.timedRequests)
                .append(" requests timed. Dropped and late requests are missing from the figures (above 0.1 % the run is Invalid); the others are "
                        + "requests no histogram holds, or that the client gave up on (docs/probe.md).</small></p>\n");
        return html.toString();
    }

    /** What each process used: memory idle and at its peak, CPU, how saturated, its longest stall, GC, image. */
    private static String footprint(RunResult r) {
        RunResult.ServerFigures s = r.server;
        List<RunResult.ClientFigure> clients = r.clients == null ? List.of() : r.clients.perClient.stream().filter(c -> c.footprint != null).toList();
        if ((s == null || (s.footprint == null && s.footprintUnavailable == null)) && clients.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>Footprint</h2>\n");
        if (s != null && s.footprint == null && s.footprintUnavailable != null) {
            html.append("<p id=\"footprint-unavailable\">The server's is not measured: ").append(Html.escape(s.footprintUnavailable)).append(".</p>\n");
        }
        html.append("<table id=\"server-footprint\"><tr><th>process</th><th>idle RSS MiB</th><th>peak RSS MiB</th><th>CPU s</th><th>CPUs busy</th>")
                .append("<th>of its CPUs</th><th>busiest period</th><th>longest wait per slice ms</th><th>saturated periods</th><th>CPU µs/request</th>")
                .append("<th>longest stall ms</th><th>GC ms</th><th>image MiB</th></tr>\n");
        if (s != null && s.footprint != null) {
            html.append(footprintRow("server", s.footprint));
        }
        clients.forEach(c -> html.append(footprintRow(c.name, c.footprint)));
        RunResult.Footprint any = s != null && s.footprint != null ? s.footprint : clients.isEmpty() ? null : clients.getFirst().footprint;
        html.append("</table>\n<p><small>Idle: the last period before the load. Peak, CPU, stalls and GC: the measured window")
                .append(any != null && "start".equals(any.peakRssSince) ? " (a peak marked since start could not be reset)" : "")
                .append(". Wait per slice: how long the threads waited for a CPU, on average, each time they became runnable. A period "
                        + "is saturated when the process used 95 % of its CPUs or waited 1 ms per slice (starved by a neighbour); a saturated "
                        + "client makes the run Invalid. Stall: the longest the client's clock jumped beyond a sleep or a request's own work, watched at least every 1 ms, or at its wake-up interval when longer.</small></p>\n");
        return html.toString();
    }

    private static String footprintRow(String process, RunResult.Footprint f) {
        return "<tr><td>" + Html.escape(process) + "</td>" + td(mib(f.idleRssBytes)) + td(mib(f.peakRssBytes)) + td(f.cpuSeconds) + td(f.cpuCores)
                + td(percent(f.cpuUtilization)) + td(percent(f.maxPeriodCpuUtilization))
                + td(f.maxWaitPerSliceMicros == null ? null : String.format(Locale.ROOT, "%.2f", f.maxWaitPerSliceMicros / 1000)) + td(f.saturatedPeriods)
                + td(f.cpuMicrosPerRequest) + td(f.maxHiccupMillis) + td(f.gcPauseMillis) + td(mib(f.imageBytes)) + "</tr>\n";
    }

    private static String mib(Long bytes) {
        return bytes == null ? null : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }

    private static String percent(Double ratio) {
        return ratio == null ? null : String.format(Locale.ROOT, "%.0f %%", ratio * 100);
    }

    /** What exactly ran: pacer's version and, per role, image and digest, node, kernel, CPU, JVM and flags. */
    private static String manifest(RunManifest manifest) {
        if (manifest == null) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>What ran</h2>\n<p>pacer ").append(Html.escape(manifest.pacerVersion()))
                .append("; the effective spec is in result.json (manifest.plan).</p>\n<table id=\"manifest\"><tr><th>role</th><th>image</th>")
                .append("<th>digest or program</th><th>node</th><th>kernel</th><th>CPU model</th><th>online CPUs</th><th>governor</th>")
                .append("<th>cpuset</th><th>measured by</th><th>JVM</th><th>JVM flags</th></tr>\n");
        manifest.roles().forEach((role, r) -> html.append("<tr><td>").append(Html.escape(role)).append("</td>")
                .append(td(r.image())).append(td(r.imageId())).append(td(r.node())).append(td(r.kernel())).append(td(r.cpuModel()))
                .append(td(r.onlineCpus())).append(td(r.governor())).append(td(r.cpuset())).append(td(r.measuredBy()))
                .append(td(r.jvm())).append(td(r.jvmArguments() == null ? null : String.join(" ", r.jvmArguments()))).append("</tr>\n"));
        return html.append("</table>\n").toString();
    }

    /** The page's head and style, shared by the run's and the suite's reports. */
    static String head(String title) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>pacer · " + Html.escape(title) + "</title>\n<style>\n"
                + "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
                + "table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}"
                + "th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}"
                + ".verdict{font-size:20px;font-weight:600;padding:6px 12px;display:inline-block;border-radius:4px}"
                + ".Passed{background:#d4f4d4}.Failed{background:#fde0c2}.Invalid{background:#f8caca}"
                + "\n</style></head><body>\n";
    }

    private static final Map<String, String> MEASURED_BY = Map.of(
            "agent", "pacer's agent in the server (first request byte parsed → response completed)",
            "probe", "the kernel probe (first request byte read → last response byte written), no agent in the server",
            "both", "pacer's agent in the server; the kernel probe's series beside it",
            "none", "nothing: the server is not measured, the verdict rests on the clients");

    private static String seconds(RunResult.Window window) {
        return window == null ? "?" : String.format(Locale.ROOT, "%.0f", (window.endEpochMs - window.startEpochMs) / 1000.0);
    }

    private static String ms(Long micros) {
        return micros == null ? "–" : String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }

    private static String td(Object value) {
        return "<td>" + Html.escape(value == null ? "–" : value instanceof Double d ? String.format(Locale.ROOT, "%.1f", d) : value.toString()) + "</td>";
    }
}
