package dev.pacer.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSchedule;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Verdict;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code pacer run FILE.yaml}: validate, run locally, print the results, write the results directory. */
@Command(name = "run", description = "Run a BenchmarkRun or BenchmarkSuite YAML on this machine (processes pinned with taskset; a suite's runs one after the other).")
final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "BenchmarkRun YAML, the same the operator takes.")
    Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "Results directory (default: runs/<name>-<timestamp>).")
    Path output;

    @Option(names = {"-p", "--server-port"}, paramLabel = "PORT", description = "Server port (default: any free port).")
    Integer serverPort;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintStream out = new PrintStream(new WriterOutputStream(spec.commandLine().getOut()), true);
        PrintStream err = new PrintStream(new WriterOutputStream(spec.commandLine().getErr()), true);
        BenchmarkRun run;
        RunPlan plan;
        try {
            String kind = BenchmarkRunYaml.kind(file);
            if (BenchmarkSuite.KIND.equals(kind)) {
                return LocalSuite.run(file, output, out, err);
            }
            if (BenchmarkSchedule.KIND.equals(kind)) {
                err.println("pacer: " + file + " is a BenchmarkSchedule: the operator runs it on a cluster (kubectl apply -f " + file
                        + "). On one machine, cron runs its template: save spec.template.run as a BenchmarkRun and add a crontab line such as "
                        + "'0 3 * * * cd /path/to/pacer && ./pacer run nightly.yaml && ./pacer history --fail-on-change' (docs/history.md)");
                return PacerCommand.EXIT_BAD_INPUT;
            }
            run = BenchmarkRunYaml.read(file);
            List<FieldProblem> problems = new ArrayList<>();
            try {
                plan = RunPlanner.plan(run);
                problems.addAll(LocalApps.problems(plan));
            } catch (RunPlanner.InvalidPlanException e) {
                problems.addAll(e.problems());
                plan = null;
            }
            if (!problems.isEmpty()) {
                for (FieldProblem problem : problems) {
                    err.println("pacer: " + file + ": " + problem);
                }
                return PacerCommand.EXIT_BAD_INPUT;
            }
        } catch (IOException e) {
            err.println("pacer: " + e.getMessage());
            return PacerCommand.EXIT_BAD_INPUT;
        }
        Path directory = output != null ? output : LocalApps.home().resolve("runs")
                .resolve(plan.runName() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        out.printf("pacer: %s, %s against %s, warm-up %d s, measured %d s; results in %s%n", plan.runName(), plan.load(),
                plan.server().image(), plan.warmup().toSeconds(), plan.duration().toSeconds(), directory);
        try {
            LocalOrchestrator.LocalRun result = new LocalOrchestrator(out, System.console() != null && System.getenv("CI") == null)
                    .run(run, plan, directory, serverPort, file.toAbsolutePath().getParent());
            ResultsTable.print(result.document(), out);
            out.println("\nresults: " + directory.resolve("result.json") + "\nreport:  " + directory.resolve("report.html"));
            return result.document().result().verdict == Verdict.Passed ? PacerCommand.EXIT_OK : PacerCommand.EXIT_VERDICT_NOT_PASSED;
        } catch (IOException e) {
            err.println("pacer: run failed: " + e.getMessage());
            return PacerCommand.EXIT_RUN_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("pacer: interrupted");
            return PacerCommand.EXIT_RUN_FAILED;
        }
    }
}
