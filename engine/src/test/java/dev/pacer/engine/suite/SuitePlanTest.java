package dev.pacer.engine.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunSpec;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteStatus;
import dev.pacer.api.Quantities;
import dev.pacer.api.RunResult;
import dev.pacer.api.Verdict;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.report.SuiteReport;
import dev.pacer.engine.report.SuiteReportAccess;
import dev.pacer.engine.report.SuiteTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SuitePlanTest {
    static final String SUITE = """
            apiVersion: pacer.dev/v1alpha1
            kind: BenchmarkSuite
            metadata: {name: shoot-out, namespace: bench}
            spec:
              template:
                clients: {count: 2, rate: "500", cpus: "1"}
                request: {path: /plaintext}
                warmup: 5s
                duration: 10s
              servers:
                - {name: jetty12, image: pacer/server-jetty12:0.1.0, args: [--mode=core], measure: both, labels: {server: jetty12}}
                - {name: loom, image: pacer/server-loom:0.1.0, measure: probe}
            %s
            """;

    @TempDir
    Path work;

    BenchmarkSuite suite(String more) throws IOException {
        Path file = work.resolve("suite.yaml");
        Files.writeString(file, SUITE.formatted(more.indent(2)));
        return BenchmarkRunYaml.readSuite(file);
    }

    static List<SuitePlan.Step> all(SuitePlan plan) {
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            done.add(new SuitePlan.Done(next.get(), SuiteOutcome.of(passed(1000))));
        }
        return done.stream().map(SuitePlan.Done::step).toList();
    }

    static RunResult passed(long clientP99Micros) {
        RunResult r = new RunResult();
        r.verdict = Verdict.Passed;
        r.clients = new RunResult.ClientFigures();
        r.clients.p50Micros = clientP99Micros / 4;
        r.clients.p99Micros = clientP99Micros;
        r.clients.errors = 0L;
        return r;
    }

    @Test
    void repetitionsInterleaveEveryServerAtEveryRate() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("rates: [\"1k\", 2000]\nrepetitions: 2"));
        assertThat(plan.plannedRuns()).hasValue(8);
        assertThat(all(plan)).extracting(SuitePlan.Step::runName).containsExactly(
                "shoot-out-jetty12-1k-1", "shoot-out-loom-1k-1", "shoot-out-jetty12-2k-1", "shoot-out-loom-2k-1",
                "shoot-out-jetty12-1k-2", "shoot-out-loom-1k-2", "shoot-out-jetty12-2k-2", "shoot-out-loom-2k-2");
    }

    @Test
    void eachRunIsTheTemplateWithItsServerAndRate() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("rates: [\"1k\"]"));
        SuitePlan.Step loom = all(plan).get(1);
        BenchmarkRun run = plan.run(loom);
        assertThat(run.getMetadata().getNamespace()).isEqualTo("bench");
        assertThat(run.getMetadata().getLabels()).containsEntry(SuitePlan.LABEL_SUITE, "shoot-out").containsEntry(SuitePlan.LABEL_SUITE_SERVER, "loom");
        assertThat(run.getSpec().server.image).isEqualTo("pacer/server-loom:0.1.0");
        assertThat(run.getSpec().server.measure).isEqualTo("probe");
        assertThat(run.getSpec().clients.rate).as("the schema's form, as a user writes it").isEqualTo("1k");
        assertThat(run.getSpec().clients.count).isEqualTo(2);
        assertThat(run.getSpec().duration).isEqualTo("10s");
        assertThat(RunPlanner.plan(run).load()).isEqualTo("2x1k");
        assertThat(plan.suite().getSpec().template.clients.rate).as("the template is not changed").isEqualTo("500");
    }

    /** Each server its own baseline: its expected P99 integral becomes its runs' criterion, over the template's. */
    @Test
    void aServersExpectedIntegralIsItsRunsCriterion() throws IOException {
        BenchmarkSuite suite = suite("rates: [\"1k\"]");
        suite.getSpec().template.criteria = new BenchmarkRunSpec.Criteria();
        suite.getSpec().template.criteria.expectP99Integral = new BenchmarkRunSpec.ExpectedIntegral();
        suite.getSpec().template.criteria.expectP99Integral.value = "9ms";
        suite.getSpec().servers.get(0).expectP99Integral = new BenchmarkRunSpec.ExpectedIntegral();
        suite.getSpec().servers.get(0).expectP99Integral.value = "6.588ms";
        suite.getSpec().servers.get(0).expectP99Integral.margin = "5%";
        SuitePlan plan = SuitePlan.of(suite);
        List<SuitePlan.Step> steps = all(plan);
        BenchmarkRunSpec.ExpectedIntegral jetty = plan.run(steps.get(0)).getSpec().criteria.expectP99Integral;
        assertThat(jetty.value).isEqualTo("6.588ms");
        assertThat(jetty.margin).isEqualTo("5%");
        assertThat(plan.run(steps.get(1)).getSpec().criteria.expectP99Integral.value).as("loom: the template's").isEqualTo("9ms");
        assertThat(RunPlanner.plan(plan.run(steps.get(0))).criteria().expectP99Integral()).hasValueSatisfying(e -> {
            assertThat(e.value()).isEqualTo(java.time.Duration.ofMillis(6).plusNanos(588_000));
            assertThat(e.margin()).isEqualTo(0.05);
            assertThat(e.toleratedOutliers()).isEqualTo(2);
        });
        assertThat(suite.getSpec().template.criteria.expectP99Integral.value).as("the template is not changed").isEqualTo("9ms");
    }

    @Test
    void aLongSuiteNameIsShortenedSoRunNamesFitKubernetes() throws IOException {
        BenchmarkSuite long_ = suite("");
        long_.getMetadata().setName("a-very-long-suite-name-that-goes-on-and-on-and-on-forever");
        SuitePlan plan = SuitePlan.of(long_);
        assertThat(all(plan)).allSatisfy(s -> assertThat(s.runName()).hasSizeLessThanOrEqualTo(52).doesNotContain("--").endsWith("-500-1"));
    }

    @Test
    void aSweepRunsServerAfterServerAndStopsEachAtItsKnee() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("sweep: {start: 1k, max: 64k, growth: 2, resolution: 10%, maxClientP99: 10ms}"));
        assertThat(plan.plannedRuns()).isEmpty();
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            SuitePlan.Step s = next.get();
            long capacity = s.server().equals("jetty12") ? 20_000 : 6_000;
            assertThat(RunPlanner.plan(plan.run(s)).clients()).as("each client of the run of %s", s.runName())
                    .allSatisfy(c -> assertThat((long) c.ratePerSecond()).isEqualTo(s.ratePerClient()));
            done.add(new SuitePlan.Done(s, SuiteOutcome.of(passed(s.ratePerClient() <= capacity ? 2_000 : 50_000))));
        }
        assertThat(done.stream().map(d -> d.step().server()).distinct()).containsExactly("jetty12", "loom");
        SuiteSummary summary = SuiteSummary.of(plan, done);
        assertThat(summary.servers()).extracting(s -> s.name).containsExactly("jetty12", "loom");
        assertThat(summary.servers().get(0).sustainedRatePerClient).isBetween(18_182L, 20_000L);
        assertThat(summary.servers().get(1).sustainedRatePerClient).isBetween(5_455L, 6_000L);
        assertThat(summary.servers().get(1).p99AtSustainedMicros).isEqualTo(2_000L);
        assertThat(summary.comparisons()).singleElement().asString().startsWith("loom sustains").contains("less than jetty12");
        assertThat(summary.curves().get("loom")).isSortedAccordingTo(Comparator.comparingLong(SuiteSummary.CurvePoint::ratePerClient));
        assertThat(summary.runs()).filteredOn(r -> Boolean.FALSE.equals(r.passed)).allSatisfy(r -> assertThat(r.reason).contains("client p99 50.000 ms above 10.000 ms"));
    }

    /** A sweep with a confirmation run to its end, the server passing a rate while {@code passes} says so. */
    private List<SuitePlan.Done> sweepToTheEnd(SuitePlan plan, BiPredicate<SuitePlan.Step, List<SuitePlan.Done>> passes) {
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            SuitePlan.Step s = next.get();
            done.add(new SuitePlan.Done(s, SuiteOutcome.of(passed(passes.test(s, done) ? 2_000 : 50_000))));
            assertThat(done).as("a sweep ends").hasSizeLessThan(40);
        }
        return done;
    }

    @Test
    void aConfirmedSweepRunsTheRateFoundLongerThenTheLowestFailureAgain() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("sweep: {start: 1k, max: 64k, growth: 2, resolution: 10%, maxClientP99: 10ms, confirm: 60s}"));
        List<SuitePlan.Done> done = sweepToTheEnd(plan, (s, before) -> s.ratePerClient() <= (s.server().equals("jetty12") ? 20_000 : 6_000));
        List<SuitePlan.Step> jetty = done.stream().map(SuitePlan.Done::step).filter(s -> s.server().equals("jetty12")).toList();
        SuiteSummary summary = SuiteSummary.of(plan, done);
        long sustained = summary.servers().getFirst().sustainedRatePerClient;
        // the search, then the rate found for 60 s (its second repetition), then the lowest failure once more
        SuitePlan.Step confirm = jetty.get(jetty.size() - 2);
        SuitePlan.Step again = jetty.getLast();
        assertThat(confirm.ratePerClient()).isEqualTo(sustained);
        assertThat(confirm.repetition()).isEqualTo(2);
        assertThat(confirm.duration()).isEqualTo("60s");
        assertThat(plan.run(confirm).getSpec().duration).isEqualTo("60s");
        assertThat(plan.run(confirm).getMetadata().getName()).endsWith("-2");
        assertThat(again.ratePerClient()).isGreaterThan(sustained);
        assertThat(again.repetition()).isEqualTo(2);
        assertThat(again.duration()).isNull();
        assertThat(plan.run(again).getSpec().duration).isEqualTo("10s");
        assertThat(jetty.subList(0, jetty.size() - 2)).allSatisfy(s -> assertThat(s.repetition()).isEqualTo(1));
        assertThat(summary.servers().getFirst().confirmation).isEqualTo("confirmed: " + Quantities.formatRate(sustained)
                + " req/s per client held over a 60s run; " + Quantities.formatRate(again.ratePerClient()) + " failed again");
        assertThat(SuiteTables.render(new SuiteDocument("shoot-out", plan.suite().getSpec(), summary), SuiteTables.Format.MARKDOWN))
                .contains("| confirmation |").contains("confirmed: ");
    }

    @Test
    void aConfirmationThatFailsMovesTheFigureDownAndSaysSo() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("sweep: {start: 1k, max: 64k, growth: 2, resolution: 10%, maxClientP99: 10ms, confirm: 60s}"));
        // a server whose capacity drops after a while: 20k in a 10 s run, 12k over 60 s
        List<SuitePlan.Done> done = sweepToTheEnd(plan, (s, before) -> s.ratePerClient() <= ("60s".equals(s.duration()) ? 12_000 : 20_000));
        SuiteSummary summary = SuiteSummary.of(plan, done);
        BenchmarkSuiteStatus.ServerSummary jetty = summary.servers().getFirst();
        List<SuitePlan.Step> confirms = done.stream().map(SuitePlan.Done::step)
                .filter(s -> s.server().equals("jetty12") && s.duration() != null).toList();
        assertThat(confirms.getFirst().ratePerClient()).as("the first confirmation, at the rate the short runs found").isGreaterThan(12_000);
        assertThat(jetty.sustainedRatePerClient).as("the figure moved below the failed confirmation").isLessThanOrEqualTo(12_000L);
        assertThat(confirms).as("the search went on at length, and the figure held at length")
                .anySatisfy(s -> assertThat(s.ratePerClient()).isEqualTo(jetty.sustainedRatePerClient));
        assertThat(done.stream().filter(d -> d.step().server().equals("jetty12")).dropWhile(d -> d.step().duration() == null).toList())
                .as("the search below a failed confirmation runs at length").allSatisfy(d -> assertThat(d.step().duration()).isEqualTo("60s"));
        assertThat(jetty.confirmation).startsWith("confirmed: " + Quantities.formatRate(jetty.sustainedRatePerClient))
                .contains("moved down from " + Quantities.formatRate(confirms.getFirst().ratePerClient())
                        + ": its 60s run failed (client p99 50.000 ms above 10.000 ms), and at that length so did ");
        assertThat(SuiteReport.text(new SuiteDocument("shoot-out", plan.suite().getSpec(), summary))).contains("moved down from");
    }

    @Test
    void aConfirmationNoLongerThanTheRunsIsRefused() throws IOException {
        assertThatThrownBy(() -> SuitePlan.of(suite("sweep: {start: 1k, max: 64k, confirm: 10s}")))
                .isInstanceOf(RunPlanner.InvalidPlanException.class).hasMessageContaining("spec.sweep.confirm")
                .hasMessageContaining("longer than spec.template.duration (10s)");
        assertThatThrownBy(() -> SuitePlan.of(suite("sweep: {start: 1k, max: 64k, confirm: 60500ms}")))
                .isInstanceOf(RunPlanner.InvalidPlanException.class).hasMessageContaining("multiple of spec.template.samplePeriod");
    }

    /** What the analysis gives when a client had no CPU left: Invalid, client-bound, and a p99 of the client's queueing. */
    static RunResult clientSaturated() {
        RunResult r = passed(900_000);
        r.verdict = Verdict.Invalid;
        r.clientBound = true;
        r.reasons.add("client-0's CPU was saturated in 6 of 6 periods");
        return r;
    }

    @Test
    void aSweepWhoseClientsCannotKeepUpReportsClientBoundNeverAServerFigureAtTheClientsLimit() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("sweep: {start: 1k, max: 64k, growth: 2, resolution: 10%, maxClientP99: 10ms}"));
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            SuitePlan.Step s = next.get();
            // jetty12: the clients give out above 3k, far below the server's capacity; loom: the server's latency limit at 6k
            RunResult result = s.server().equals("jetty12")
                    ? (s.ratePerClient() <= 3_000 ? passed(2_000) : clientSaturated())
                    : passed(s.ratePerClient() <= 6_000 ? 2_000 : 50_000);
            done.add(new SuitePlan.Done(s, SuiteOutcome.of(result)));
        }
        SuiteSummary summary = SuiteSummary.of(plan, done);
        var jetty = summary.servers().get(0);
        assertThat(jetty.clientBound).isTrue();
        assertThat(jetty.sustainedRatePerClient).as("the highest rate the clients applied").isBetween(2_728L, 3_000L);
        assertThat(summary.servers().get(1).clientBound).isNull();
        assertThat(summary.runs()).filteredOn(r -> r.server.equals("jetty12") && Boolean.FALSE.equals(r.passed))
                .isNotEmpty().allSatisfy(r -> {
                    assertThat(r.boundBy).isEqualTo("client");
                    assertThat(r.reason).startsWith("client-bound: client-0's CPU was saturated");
                });
        assertThat(summary.runs()).filteredOn(r -> r.server.equals("loom") && Boolean.FALSE.equals(r.passed))
                .isNotEmpty().allSatisfy(r -> assertThat(r.boundBy).isEqualTo("latency limit"));
        assertThat(summary.comparisons()).singleElement().asString()
                .contains("at least").contains("no comparison").contains("not jetty12, were the limit");
        assertThat(SuiteReportAccess.sustained(jetty)).startsWith("≥ ").endsWith(" (client-bound)");
    }

    @Test
    void aClientBoundStartShrinksAndNeverCountsAsTheServersFailure() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("sweep: {start: 1k, max: 64k, growth: 2, resolution: 10%, maxClientP99: 10ms}"));
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            done.add(new SuitePlan.Done(next.get(), SuiteOutcome.of(clientSaturated())));
        }
        SuiteSummary summary = SuiteSummary.of(plan, done);
        assertThat(summary.servers()).allSatisfy(s -> {
            assertThat(s.sustainedRatePerClient).isNull();
            assertThat(s.clientBound).isTrue();
        });
        assertThat(SuiteReportAccess.sustained(summary.servers().get(0))).isEqualTo("none (client-bound)");
    }

    @Test
    void fixedRatesGiveMediansIntervalsAndASentencePerServer() throws IOException {
        SuitePlan plan = SuitePlan.of(suite("repetitions: 3"));
        List<SuitePlan.Done> done = new ArrayList<>();
        Optional<SuitePlan.Step> next;
        while ((next = plan.next(done)).isPresent()) {
            SuitePlan.Step s = next.get();
            boolean jetty12 = s.server().equals("jetty12");
            long base = jetty12 ? 100 : 130;
            RunResult r = passed(1_000);
            r.server = new RunResult.ServerFigures();
            r.server.histogramsAvailable = true;
            // the probe's service, the series compared: loom's main series, jetty12's beside its agent's processing
            RunResult.SeriesFigures service = new RunResult.SeriesFigures();
            service.p99IntegralMicros = base * 10 + s.repetition();
            service.maxIntegralMicros = base * 50L;
            service.periodP99Micros = List.of(base, base + 1, base + 2, base - 1, base + 3, base, base + 1, base - 2, base, base + 1);
            if (jetty12) {
                r.server.measuredBy = "both";
                r.server.series = "processing";   // the agent's, a third of the probe's: never set beside loom's
                r.server.p99IntegralMicros = service.p99IntegralMicros / 3;
                r.server.maxIntegralMicros = service.maxIntegralMicros / 3;
                r.server.periodP99Micros = service.periodP99Micros.stream().map(p -> p / 3).toList();
                service.name = "probe.service";
                r.server.otherSeries = List.of(service);
            } else {
                r.server.measuredBy = "probe";
                r.server.series = "service";
                r.server.p99IntegralMicros = service.p99IntegralMicros;
                r.server.maxIntegralMicros = service.maxIntegralMicros;
                r.server.periodP99Micros = service.periodP99Micros;
            }
            r.server.footprint = new RunResult.Footprint();
            r.server.footprint.idleRssBytes = (base + s.repetition()) << 20;
            r.server.footprint.peakRssBytes = (2 * base + s.repetition()) << 20;
            r.server.footprint.cpuMicrosPerRequest = base / 10.0 + s.repetition();
            r.server.footprint.cpuCores = 0.5;
            r.server.footprint.imageBytes = s.server().equals("jetty12") ? 90L << 20 : null;
            done.add(new SuitePlan.Done(s, SuiteOutcome.of(r)));
        }
        done.add(new SuitePlan.Done(new SuitePlan.Step("x", "loom", 1, 500, 4), SuiteOutcome.failed("no image")));
        SuiteSummary summary = SuiteSummary.of(plan, done);
        assertThat(summary.series()).as("a server measured by the probe alone: every server compared by the probe's service").isEqualTo("service");
        assertThat(summary.runs().getFirst().p99IntegralMicros).as("a run's line: its service integral, not its agent's").isEqualTo(1001);
        var jetty = summary.servers().get(0);
        assertThat(jetty.repetitions).isEqualTo(3);
        assertThat(jetty.p99IntegralMedianMicros).isEqualTo(1002);
        assertThat(jetty.p99IntegralLowMicros).isEqualTo(1001);
        assertThat(jetty.p99IntegralHighMicros).isEqualTo(1003);
        assertThat(jetty.intervalConfidence).isEqualTo(0.75);
        // the footprint: each figure's median over the repetitions (repetitions 1, 2, 3)
        assertThat(jetty.idleRssBytes).isEqualTo(102L << 20);
        assertThat(jetty.peakRssBytes).isEqualTo(202L << 20);
        assertThat(jetty.cpuMicrosPerRequest).isEqualTo(12.0);
        assertThat(jetty.cpuCores).isEqualTo(0.5);
        assertThat(jetty.imageBytes).isEqualTo(90L << 20);
        assertThat(summary.servers().get(1).imageBytes).isNull();
        assertThat(summary.servers().get(1).idleRssBytes).isEqualTo(132L << 20);
        assertThat(summary.comparisons()).singleElement().asString()
                .startsWith("at 500 req/s per client: loom is 23.0 % slower than jetty12").contains("exceeds run-to-run noise");
        assertThat(summary.runs().getLast().phase).isEqualTo("Failed");
    }

    @Test
    void aBadSuiteIsRefusedNamingItsFields() throws IOException {
        BenchmarkSuite bad = suite("sweep: {start: 10k, max: 1k}\nrates: [\"1k\"]\nrepetitions: 0");
        bad.getSpec().servers.get(1).name = "jetty12";
        assertThatThrownBy(() -> SuitePlan.of(bad)).isInstanceOf(RunPlanner.InvalidPlanException.class)
                .hasMessageContaining("spec.sweep.max: must be at least spec.sweep.start (10k), was 1k: the bounds are inverted")
                .hasMessageContaining("spec.rates: and spec.sweep exclude each other")
                .hasMessageContaining("spec.repetitions: must be in [1, 20], was 0")
                .hasMessageContaining("spec.servers[1].name: 'jetty12' names two servers");
    }

    @Test
    void aServerTheRunWouldRefuseIsRefusedAsTheSuitesField() throws IOException {
        BenchmarkSuite bad = suite("");
        bad.getSpec().servers.get(1).port = 9090;
        bad.getSpec().template.clients.count = 0;
        assertThatThrownBy(() -> SuitePlan.of(bad)).isInstanceOf(RunPlanner.InvalidPlanException.class)
                .hasMessageContaining("spec.servers[1].port: must not be 9090")
                .hasMessageContaining("spec.template.clients.count: must be in [1, 64]");
    }

    @Test
    void noServersIsRefused() throws IOException {
        BenchmarkSuite none = BenchmarkRunYaml.readSuite(write("""
                apiVersion: pacer.dev/v1alpha1
                kind: BenchmarkSuite
                metadata: {name: empty}
                spec:
                  template: {clients: {count: 1, rate: "100"}, duration: 5s}
                  servers: []
                """));
        assertThatThrownBy(() -> SuitePlan.of(none)).hasMessageContaining("spec.servers: must list at least one server");
    }

    private Path write(String yaml) throws IOException {
        Path file = work.resolve("other.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
