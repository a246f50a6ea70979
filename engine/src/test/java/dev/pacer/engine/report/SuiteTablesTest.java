package dev.pacer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.contract.Golden;
import dev.pacer.engine.suite.SuiteDocument;
import dev.pacer.engine.suite.SuiteOutcome;
import dev.pacer.engine.suite.SuitePlan;
import dev.pacer.engine.suite.SuiteSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two published table shapes, as Markdown and CSV: golden files. */
class SuiteTablesTest {
    static final String SUITE = """
            apiVersion: pacer.dev/v1alpha1
            kind: BenchmarkSuite
            metadata: {name: shoot-out}
            spec:
              template:
                clients: {count: 4, rate: "1k", cpus: "1"}
                request: {path: /}
                duration: 30s
              servers:
                - {name: nginx, image: nginx:1.27, measure: probe}
                - {name: jetty12, image: pacer/server-jetty12:0.1.0, args: [--mode=core], measure: both}
                - {name: vertx, image: pacer/server-vertx:0.1.0, measure: probe}
            %s
            """;

    @TempDir
    Path work;

    SuiteDocument run(String more, BiFunction<SuitePlan.Step, Long, RunResult> result) throws IOException {
        Path file = work.resolve("suite.yaml");
        Files.writeString(file, SUITE.formatted(more.indent(2)));
        BenchmarkSuite suite = BenchmarkRunYaml.readSuite(file);
        SuitePlan plan = SuitePlan.of(suite);
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            done.add(new SuitePlan.Done(next.get(), SuiteOutcome.of(result.apply(next.get(), next.get().ratePerClient()))));
        }
        return new SuiteDocument("shoot-out", suite.getSpec(), SuiteSummary.of(plan, done));
    }

    /** A run's result: the server measured by its agent or the probe, with its footprint. */
    static RunResult result(String server, long clientP99Micros, long serverP99Micros) {
        RunResult r = new RunResult();
        r.verdict = Verdict.Passed;
        r.clients = new RunResult.ClientFigures();
        r.clients.p50Micros = clientP99Micros / 3;
        r.clients.p99Micros = clientP99Micros;
        r.clients.errors = 0L;
        r.server = new RunResult.ServerFigures();
        r.server.histogramsAvailable = true;
        RunResult.SeriesFigures residence = new RunResult.SeriesFigures();
        residence.p99Micros = serverP99Micros + 40;
        if (server.equals("jetty12")) {   // measure: both: the agent's processing first, the probe's series beside
            r.server.measuredBy = "both";
            r.server.series = "processing";
            r.server.p99Micros = serverP99Micros / 2;   // never the figure of a comparison by the probe's service
            r.server.p99IntegralMicros = serverP99Micros * 15;
            r.server.maxIntegralMicros = serverP99Micros * 45;
            RunResult.SeriesFigures service = new RunResult.SeriesFigures();
            service.name = "probe.service";
            service.p99Micros = serverP99Micros;
            service.p99IntegralMicros = serverP99Micros * 30;
            service.maxIntegralMicros = serverP99Micros * 90;
            residence.name = "probe.residence";
            r.server.otherSeries = List.of(service, residence);
        } else {
            r.server.measuredBy = "probe";
            r.server.series = "service";
            r.server.p99Micros = serverP99Micros;
            r.server.p99IntegralMicros = serverP99Micros * 30;
            r.server.maxIntegralMicros = serverP99Micros * 90;
            residence.name = "residence";
            r.server.otherSeries = List.of(residence);
        }
        r.server.footprint = new RunResult.Footprint();
        r.server.footprint.idleRssBytes = server.equals("nginx") ? 6_900_000L : 61_500_000L;
        r.server.footprint.imageBytes = server.equals("nginx") ? 192_000_000L : 98_400_000L;
        r.server.footprint.cpuMicrosPerRequest = server.equals("nginx") ? 11.4 : 18.25;
        return r;
    }

    SuiteDocument sweep() throws IOException {
        return run("sweep: {start: 25k, max: 100k, growth: 2, resolution: 10%, maxClientP99: 10ms}", (step, rate) -> switch (step.server()) {
            case "nginx" -> {   // its clients give out first
                RunResult r = result("nginx", rate <= 50_000 ? 1_900 : 900_000, 120);
                if (rate > 50_000) {
                    r.verdict = Verdict.Invalid;
                    r.clientBound = true;
                    r.reasons.add("client-2's CPU was saturated in 30 of 30 periods");
                }
                yield r;
            }
            // its residence carries most of its clients' p99: the latency limit is its own
            case "jetty12" -> result("jetty12", rate <= 50_000 ? 2_400 : 25_000, rate <= 50_000 ? 300 : 15_000);
            default -> result("vertx", 40_000, 12_000);   // fails from the start, its residence a third of the clients' p99
        });
    }

    @Test
    void aSweepInTheShapeOfTheShootOutTableAsMarkdown() throws IOException {
        String markdown = SuiteTables.render(sweep(), SuiteTables.Format.MARKDOWN);
        assertThat(markdown).startsWith("| Service | Image MB | RSS idle | Sustained @ p99 < 10ms | p50 | p99 |");
        assertThat(markdown).contains("| nginx | 192.0 | 6.9 MB | ≥ 200k (client-bound) |").contains("| client |");
        Golden.assertMatches(markdown, "suite-sweep.md");
    }

    @Test
    void aSweepAsAnHtmlTableHasTheMarkdownTablesCellsEscaped() throws IOException {
        String markdown = SuiteTables.render(sweep(), SuiteTables.Format.MARKDOWN);
        String html = SuiteTables.render(sweep(), SuiteTables.Format.HTML);
        assertThat(html).startsWith("<table id=\"suite-sweep-table\"><tr><th>Service</th><th>Image MB</th><th>RSS idle</th>"
                + "<th>Sustained @ p99 &lt; 10ms</th>");
        assertThat(html).contains("<td>nginx</td><td>192.0</td><td>6.9 MB</td><td>≥ 200k (client-bound)</td>");
        // the HTML: the header row, a row per server, the closing tag; the Markdown: the header, its rule, a row per server
        assertThat(html.lines().count()).as("a row per server, as in the Markdown table").isEqualTo(markdown.lines().count());
        Golden.assertMatches(html, "suite-sweep.html");
    }

    @Test
    void aSweepAsCsvHasOneFieldPerFigureWithUnitsInTheHeader() throws IOException {
        String csv = SuiteTables.render(sweep(), SuiteTables.Format.CSV);
        assertThat(csv.lines().findFirst().orElseThrow()).isEqualTo("service,image_bytes,idle_rss_bytes,sustained_rps,sustained_rps_per_client,"
                + "client_bound,client_p50_us,client_p99_us,server_p99_us,server_measured_by,server_series,residence_p99_us,cpu_us_per_request,bound_by,p99_parts_at_bound");
        assertThat(csv.lines()).hasSize(4).allSatisfy(line -> assertThat(line.split(",", -1)).hasSize(15));
        Golden.assertMatches(csv, "suite-sweep.csv");
    }

    @Test
    void fixedRatesInTheShapeOfJettysComparisonWithPercentFaster() throws IOException {
        SuiteDocument fixed = run("rates: [\"1k\"]\nrepetitions: 3", (step, rate) -> {
            long p99 = switch (step.server()) {
                case "nginx" -> 100;
                case "jetty12" -> 80;
                default -> 125;
            };
            return result(step.server(), 2_000, p99 + step.repetition());
        });
        String markdown = SuiteTables.render(fixed, SuiteTables.Format.MARKDOWN);
        // P99 integral medians: nginx 3,060 µs, jetty12 2,460 µs, the third 3,810 µs. As Jetty publishes it, the baseline's
        // integral over the server's, minus one: 3060 / 2460 - 1 = 24.4 % faster; 3060 / 3810 - 1 = -19.7 %
        assertThat(markdown).contains("| jetty12 | 1k | 3 | 2.46 ms |").contains("| +24.4 % |").contains("| -19.7 % |");
        Golden.assertMatches(markdown, "suite-fixed.md");
        Golden.assertMatches(SuiteTables.render(fixed, SuiteTables.Format.CSV), "suite-fixed.csv");
        String html = SuiteTables.render(fixed, SuiteTables.Format.HTML);
        assertThat(html).contains("<td>jetty12</td><td>1k</td><td>3</td><td>2.46 ms</td>").contains("<td>+24.4 %</td>").contains("<td>-19.7 %</td>");
        Golden.assertMatches(html, "suite-fixed.html");
    }

    /**
     * Jetty's blog figures, a P99 of 36.6, 34.8 and 30.0 µs over 180 periods (integrals 6,588, 6,264 and 5,400 µs of the
     * probe's service), through a suite's surfaces: its sentences, its Markdown, CSV and HTML tables, and its report.
     * Chappe is measured by the probe alone, the Jetty servers by both; their agent's processing, a tenth of their
     * service, must be in none of them. Each surface reads 5.2 % and 22.0 % faster than chappe.
     */
    @Test
    void theBlogsFiguresReadFiveAndTwentyTwoPercentFasterInEverySuiteSurface() throws IOException {
        Path file = work.resolve("blog.yaml");
        Files.writeString(file, """
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkSuite
                metadata: {name: blog}
                spec:
                  template: {clients: {count: 4, rate: 60k, cpus: "1"}, duration: 180s}
                  servers:
                    - {name: chappe, image: chappe:jvm, measure: probe}
                    - {name: jetty11, image: pacer/server-jetty11:0.1.0, measure: both}
                    - {name: jetty12, image: pacer/server-jetty12:0.1.0, measure: both}
                """);
        BenchmarkSuite suite = BenchmarkRunYaml.readSuite(file);
        SuitePlan plan = SuitePlan.of(suite);
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            long integral = switch (next.get().server()) {
                case "chappe" -> 6_588;
                case "jetty11" -> 6_264;
                default -> 5_400;
            };
            RunResult r = result(next.get().server().equals("chappe") ? "nginx" : "jetty12", 2_000, integral / 180);
            RunResult.SeriesFigures service = r.server.otherSeries.stream().filter(o -> o.name.equals("probe.service")).findFirst()
                    .orElse(null);
            if (service == null) {   // the probe alone: service is the main series
                r.server.p99IntegralMicros = integral;
            } else {
                service.p99IntegralMicros = integral;
                r.server.p99IntegralMicros = integral / 10;
            }
            List<Long> periods = java.util.Collections.nCopies(180, integral / 180);
            if (service == null) {
                r.server.periodP99Micros = periods;
            } else {
                service.periodP99Micros = periods;
                r.server.periodP99Micros = java.util.Collections.nCopies(180, integral / 1800);
            }
            done.add(new SuitePlan.Done(next.get(), SuiteOutcome.of(r)));
        }
        SuiteDocument doc = new SuiteDocument("blog", suite.getSpec(), SuiteSummary.of(plan, done));
        assertThat(doc.summary().comparisons()).hasSize(2);
        assertThat(doc.summary().comparisons().get(0)).contains("jetty11 is 5.2 % faster than chappe by the P99 integral (6.264 ms against 6.588 ms");
        assertThat(doc.summary().comparisons().get(1)).contains("jetty12 is 22.0 % faster than chappe by the P99 integral (5.400 ms against 6.588 ms");
        assertThat(SuiteTables.render(doc, SuiteTables.Format.MARKDOWN)).contains("| jetty11 | 60k | 1 | 6.26 ms |").contains("| +5.2 % |")
                .contains("| +22.0 % |");
        assertThat(SuiteTables.render(doc, SuiteTables.Format.CSV)).contains("jetty11,60000,1,6264,").contains(",5.17\n").contains(",22.00\n");
        assertThat(SuiteReport.html(doc)).contains("<td>+5.2 %</td>").contains("<td>+22.0 %</td>")
                .contains("jetty12 is 22.0 % faster than chappe").contains("compared by their service series");
        assertThat(SuiteReport.text(doc)).contains("jetty11 is 5.2 % faster than chappe");
    }
}
