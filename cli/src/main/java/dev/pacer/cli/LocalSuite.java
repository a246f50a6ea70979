package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Quantities;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.report.SuiteReport;
import dev.pacer.engine.suite.SuiteDocument;
import dev.pacer.engine.suite.SuiteOutcome;
import dev.pacer.engine.suite.SuitePlan;
import dev.pacer.engine.suite.SuiteSummary;

/**
 * {@code pacer run SUITE.yaml}: the suite's runs one after the other on this machine, in the order of its plan
 * ({@link SuitePlan}), each into its own results directory under the suite's; {@code suite.json} and
 * {@code suite.html} are rewritten after every run, so an interrupted suite keeps what it measured.
 */
final class LocalSuite {
    private LocalSuite() {
    }

    static int run(Path file, Path output, PrintStream out, PrintStream err) {
        BenchmarkSuite suite;
        SuitePlan plan;
        try {
            suite = BenchmarkRunYaml.readSuite(file);
            plan = SuitePlan.of(suite);
            List<FieldProblem> problems = new ArrayList<>();
            for (int i = 0; i < plan.servers().size(); i++) {
                RunPlan runPlan = RunPlanner.plan(plan.run(new SuitePlan.Step("check", plan.servers().get(i).name, i, 1, 1)));
                final int index = i;
                LocalApps.problems(runPlan).forEach(p -> problems.add(new FieldProblem(
                        p.field().replace("spec.server", "spec.servers[" + index + "]"), p.message())));
            }
            if (!problems.isEmpty()) {
                problems.forEach(p -> err.println("pacer: " + file + ": " + p));
                return PacerCommand.EXIT_BAD_INPUT;
            }
        } catch (RunPlanner.InvalidPlanException e) {
            e.problems().forEach(p -> err.println("pacer: " + file + ": " + p));
            return PacerCommand.EXIT_BAD_INPUT;
        } catch (IOException e) {
            err.println("pacer: " + e.getMessage());
            return PacerCommand.EXIT_BAD_INPUT;
        }
        Path directory = output != null ? output : LocalApps.home().resolve("runs")
                .resolve(plan.suiteName() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        out.printf("pacer: suite %s, %d servers, %s; results in %s%n", plan.suiteName(), plan.servers().size(),
                plan.sweep().map(s -> "a sweep from " + Quantities.formatRate(s.start()) + " to " + Quantities.formatRate(s.max())
                        + " req/s per client").orElseGet(() -> plan.plannedRuns().getAsLong() + " runs"), directory);
        List<SuitePlan.Done> done = new ArrayList<>();
        boolean terminal = System.console() != null && System.getenv("CI") == null;
        Optional<SuitePlan.Step> step;
        while ((step = plan.next(done)).isPresent()) {
            SuitePlan.Step s = step.get();
            out.printf("%nsuite %s: run %d%s: %s, %s req/s per client, repetition %d%n", plan.suiteName(), done.size() + 1,
                    plan.plannedRuns().isPresent() ? " of " + plan.plannedRuns().getAsLong() : "", s.server(),
                    Quantities.formatRate(s.ratePerClient()), s.repetition());
            BenchmarkRun run = plan.run(s);
            try {
                LocalOrchestrator.LocalRun result = new LocalOrchestrator(out, terminal)
                        .run(run, RunPlanner.plan(run), directory.resolve(s.runName()), null, file.toAbsolutePath().getParent());
                done.add(new SuitePlan.Done(s, SuiteOutcome.of(result.document().result())));
                out.println(s.runName() + ": verdict " + result.document().result().verdict);
            } catch (IOException e) {
                done.add(new SuitePlan.Done(s, SuiteOutcome.failed(e.getMessage())));
                out.println(s.runName() + ": failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println("pacer: interrupted; what was measured is in " + directory);
                return PacerCommand.EXIT_RUN_FAILED;
            }
            try {
                write(plan, done, directory);
            } catch (IOException e) {
                err.println("pacer: writing the suite's results: " + e.getMessage());
                return PacerCommand.EXIT_RUN_FAILED;
            }
        }
        SuiteDocument document = new SuiteDocument(plan.suiteName(), suite.getSpec(), SuiteSummary.of(plan, done));
        out.print(SuiteReport.text(document));
        out.println("\nsuite:  " + directory.resolve(SuiteDocument.FILE_NAME) + "\nreport: " + directory.resolve(SuiteReport.FILE_NAME));
        return done.stream().allMatch(d -> d.outcome().succeeded()) ? PacerCommand.EXIT_OK : PacerCommand.EXIT_VERDICT_NOT_PASSED;
    }

    private static void write(SuitePlan plan, List<SuitePlan.Done> done, Path directory) throws IOException {
        SuiteDocument document = new SuiteDocument(plan.suiteName(), plan.suite().getSpec(), SuiteSummary.of(plan, done));
        document.write(directory);
        SuiteReport.write(document, directory);
    }
}
