package dev.pacer.engine.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import dev.pacer.api.BenchmarkSuiteSpec;
import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.api.Quantities;
import dev.pacer.engine.analysis.PeriodComparison;
import dev.pacer.engine.suite.SuiteDocument;

/**
 * A suite's figures in the two published table shapes, as Markdown to paste, CSV to load or an HTML table for the
 * suite's page, pure:
 * <ul>
 *   <li>a sweep in the shape of Chappe's shoot-out table (Service, Image MB, RSS idle, Sustained @ p99 &lt; limit,
 *       p50, p99), followed by pacer's own columns: the server's p99 and what measured it, the probe's residence p99,
 *       CPU per request, and what bound the rate above the sustained one;</li>
 *   <li>fixed rates in the shape of Jetty's comparison: per server and rate, the median P99 and max integrals over the
 *       repetitions and how much faster than the first server as Jetty publishes it, {@code first / server - 1} of the P99
 *       integral.</li>
 * </ul>
 * The sustained rate is the total over the clients (the shoot-out's is wrk2's total); per client in its own CSV column.
 */
public final class SuiteTables {
    public enum Format { MARKDOWN, CSV, HTML }

    private record Column(String markdown, String csv, Function<BenchmarkSuiteStatus.ServerSummary, String> markdownCell,
                          Function<BenchmarkSuiteStatus.ServerSummary, String> csvCell) {
    }

    private SuiteTables() {
    }

    public static String render(SuiteDocument doc, Format format) {
        boolean fixed = doc.summary().servers().stream().anyMatch(x -> x.ratePerClient != null);
        List<Column> columns = fixed ? fixedColumns(doc) : sweepColumns(doc);
        return switch (format) {
            case MARKDOWN -> markdown(columns, doc.summary().servers());
            case CSV -> csv(columns, doc.summary().servers());
            case HTML -> html(columns, doc.summary().servers(), fixed ? "suite-fixed-table" : "suite-sweep-table");
        };
    }

    private static List<Column> sweepColumns(SuiteDocument doc) {
        int clients = clientCount(doc.spec());
        String limit = doc.spec() == null || doc.spec().sweep == null ? "?" : doc.spec().sweep.maxClientP99;
        List<Column> columns = new ArrayList<>();
        columns.add(new Column("Service", "service", x -> x.name, x -> x.name));
        columns.add(new Column("Image MB", "image_bytes", x -> mb(x.imageBytes), x -> number(x.imageBytes)));
        columns.add(new Column("RSS idle", "idle_rss_bytes", x -> x.idleRssBytes == null ? "–" : mb(x.idleRssBytes) + " MB", x -> number(x.idleRssBytes)));
        columns.add(new Column("Sustained @ p99 < " + limit, "sustained_rps", x -> sustained(x, clients),
                x -> x.sustainedRatePerClient == null ? "" : Long.toString(x.sustainedRatePerClient * clients)));
        columns.add(new Column(null, "sustained_rps_per_client", null, x -> number(x.sustainedRatePerClient)));
        columns.add(new Column(null, "client_bound", null, x -> Boolean.toString(x.clientBound != null)));
        columns.add(new Column("p50", "client_p50_us", x -> ms(x.p50AtSustainedMicros), x -> number(x.p50AtSustainedMicros)));
        columns.add(new Column("p99", "client_p99_us", x -> ms(x.p99AtSustainedMicros), x -> number(x.p99AtSustainedMicros)));
        String series = doc.summary().series();   // every server's p99 is of this one series
        columns.add(new Column("server p99" + (series == null ? "" : " (" + series + ")"), "server_p99_us",
                x -> x.serverP99AtSustainedMicros == null ? "–" : ms(x.serverP99AtSustainedMicros) + (series == null ? " (" + x.serverMeasuredBy + ")" : ""),
                x -> number(x.serverP99AtSustainedMicros)));
        columns.add(new Column(null, "server_measured_by", null, x -> x.serverMeasuredBy == null ? "" : x.serverMeasuredBy));
        columns.add(new Column(null, "server_series", null, x -> series == null || x.serverP99AtSustainedMicros == null ? "" : series));
        columns.add(new Column("residence p99", "residence_p99_us", x -> ms(x.residenceP99AtSustainedMicros), x -> number(x.residenceP99AtSustainedMicros)));
        columns.add(new Column("CPU µs/req", "cpu_us_per_request", x -> decimal(x.cpuMicrosPerRequest), x -> number(x.cpuMicrosPerRequest)));
        columns.add(new Column("bound by", "bound_by", x -> x.boundBy == null ? "none (max passed)" : x.boundBy, x -> x.boundBy == null ? "" : x.boundBy));
        columns.add(new Column("p99 parts there", "p99_parts_at_bound", x -> x.p99PartsAtBound == null ? "–" : x.p99PartsAtBound,
                x -> x.p99PartsAtBound == null ? "" : x.p99PartsAtBound));
        if (doc.summary().servers().stream().anyMatch(x -> x.confirmation != null)) {   // a sweep with spec.sweep.confirm
            columns.add(new Column("confirmation", "confirmation", x -> x.confirmation == null ? "–" : x.confirmation,
                    x -> x.confirmation == null ? "" : x.confirmation));
        }
        return columns;
    }

    private static List<Column> fixedColumns(SuiteDocument doc) {
        List<BenchmarkSuiteStatus.ServerSummary> servers = doc.summary().servers();
        Function<BenchmarkSuiteStatus.ServerSummary, Double> faster = x -> servers.stream()
                .filter(first -> first.ratePerClient != null && first.ratePerClient.equals(x.ratePerClient)).findFirst()
                .filter(first -> first.p99IntegralMedianMicros != null && x.p99IntegralMedianMicros != null && x.p99IntegralMedianMicros > 0)
                .map(first -> PeriodComparison.percentFaster(first.p99IntegralMedianMicros, x.p99IntegralMedianMicros)).orElse(null);
        List<Column> columns = new ArrayList<>();
        columns.add(new Column("Server", "server", x -> x.name, x -> x.name));
        columns.add(new Column("Rate per client", "rate_per_client", x -> Quantities.formatRate(x.ratePerClient), x -> number(x.ratePerClient)));
        columns.add(new Column("Runs", "runs", x -> number(x.repetitions), x -> number(x.repetitions)));
        columns.add(new Column("P99 integral", "p99_integral_us", x -> ms(x.p99IntegralMedianMicros), x -> number(x.p99IntegralMedianMicros)));
        columns.add(new Column("interval", null, x -> x.p99IntegralLowMicros == null ? "–" : ms(x.p99IntegralLowMicros) + " – " + ms(x.p99IntegralHighMicros), null));
        columns.add(new Column(null, "p99_integral_low_us", null, x -> number(x.p99IntegralLowMicros)));
        columns.add(new Column(null, "p99_integral_high_us", null, x -> number(x.p99IntegralHighMicros)));
        columns.add(new Column("max integral", "max_integral_us", x -> ms(x.maxIntegralMedianMicros), x -> number(x.maxIntegralMedianMicros)));
        columns.add(new Column("% faster", "percent_faster", x -> {
            Double f = faster.apply(x);
            boolean first = servers.stream().filter(y -> y.ratePerClient != null && y.ratePerClient.equals(x.ratePerClient)).findFirst()
                    .map(y -> y == x).orElse(false);
            return first ? "baseline" : f == null ? "–" : String.format(Locale.ROOT, "%+.1f %%", f);
        }, x -> {
            Double f = faster.apply(x);
            return f == null ? "" : String.format(Locale.ROOT, "%.2f", f);
        }));
        return columns;
    }

    private static String markdown(List<Column> all, List<BenchmarkSuiteStatus.ServerSummary> servers) {
        List<Column> columns = all.stream().filter(c -> c.markdown() != null).toList();
        StringBuilder md = new StringBuilder("|");
        columns.forEach(c -> md.append(' ').append(c.markdown()).append(" |"));
        md.append("\n|");
        columns.forEach(c -> md.append("---|"));
        for (BenchmarkSuiteStatus.ServerSummary x : servers) {
            md.append("\n|");
            columns.forEach(c -> md.append(' ').append(c.markdownCell().apply(x).replace("|", "\\|")).append(" |"));
        }
        return md.append('\n').toString();
    }

    /** The Markdown table's columns and cells, as an HTML table with this id. */
    private static String html(List<Column> all, List<BenchmarkSuiteStatus.ServerSummary> servers, String id) {
        List<Column> columns = all.stream().filter(c -> c.markdown() != null).toList();
        StringBuilder html = new StringBuilder("<table id=\"").append(id).append("\"><tr>");
        columns.forEach(c -> html.append("<th>").append(Html.escape(c.markdown())).append("</th>"));
        html.append("</tr>\n");
        for (BenchmarkSuiteStatus.ServerSummary x : servers) {
            html.append("<tr>");
            columns.forEach(c -> html.append("<td>").append(Html.escape(c.markdownCell().apply(x))).append("</td>"));
            html.append("</tr>\n");
        }
        return html.append("</table>\n").toString();
    }

    private static String csv(List<Column> all, List<BenchmarkSuiteStatus.ServerSummary> servers) {
        List<Column> columns = all.stream().filter(c -> c.csv() != null).toList();
        StringBuilder csv = new StringBuilder(String.join(",", columns.stream().map(Column::csv).toList()));
        for (BenchmarkSuiteStatus.ServerSummary x : servers) {
            csv.append('\n').append(String.join(",", columns.stream().map(c -> quoted(c.csvCell().apply(x))).toList()));
        }
        return csv.append('\n').toString();
    }

    /** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
    private static String quoted(String field) {
        return field.contains(",") || field.contains("\"") || field.contains("\n") ? '"' + field.replace("\"", "\"\"") + '"' : field;
    }

    private static String sustained(BenchmarkSuiteStatus.ServerSummary x, int clients) {
        return SuiteReport.sustained(x.sustainedRatePerClient == null ? null : x.sustainedRatePerClient * clients, x.clientBound != null);
    }

    private static int clientCount(BenchmarkSuiteSpec spec) {
        return spec == null || spec.template == null || spec.template.clients == null || spec.template.clients.count == null ? 1
                : Math.max(1, spec.template.clients.count);
    }

    private static String mb(Long bytes) {
        return bytes == null ? "–" : String.format(Locale.ROOT, "%.1f", bytes / 1e6);
    }

    private static String ms(Long micros) {
        return micros == null ? "–" : String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
    }

    private static String decimal(Double value) {
        return value == null ? "–" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String number(Number value) {
        return value == null ? "" : value.toString();
    }
}
