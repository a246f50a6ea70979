package dev.pacer.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.pacer.api.BenchmarkRunYaml;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.engine.report.HtmlReport;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.engine.report.SuiteReport;
import dev.pacer.engine.report.SuiteTables;
import dev.pacer.engine.suite.SuiteDocument;
import dev.pacer.engine.suite.SuiteSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code pacer report DIR}: renders report.html again from result.json (suite.html from a suite's directory); with
 * {@code --format markdown|csv}, prints a suite's table in its published shape, from its directory or from a
 * BenchmarkSuite with its status ({@code kubectl get bs NAME -o yaml}).
 */
@Command(name = "report", description = "Render report.html again from a results directory (suite.html from a suite's), or print "
        + "a suite's table as Markdown or CSV: a sweep in the shape of Chappe's shoot-out, fixed rates in Jetty's.")
final class ReportCommand implements Callable<Integer> {
    enum Format { html, markdown, csv }

    @Parameters(index = "0", paramLabel = "DIR|SUITE.yaml",
            description = "A results directory (holds result.json or suite.json), or, with --format markdown or csv, a BenchmarkSuite with its status.")
    Path source;

    @Option(names = "--format", defaultValue = "html", paramLabel = "FORMAT",
            description = "html (default: writes the report file), markdown or csv (prints a suite's table).")
    Format format;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try {
            if (format != Format.html) {
                SuiteDocument suite = suite(source);
                spec.commandLine().getOut().print(SuiteTables.render(suite,
                        format == Format.markdown ? SuiteTables.Format.MARKDOWN : SuiteTables.Format.CSV));
                spec.commandLine().getOut().flush();   // print() is not flushed by the writer's autoflush
                return PacerCommand.EXIT_OK;
            }
            if (Files.isRegularFile(source.resolve(SuiteDocument.FILE_NAME))) {
                Path file = SuiteReport.write(SuiteDocument.read(source), source);
                spec.commandLine().getOut().println("report: " + file);
                return PacerCommand.EXIT_OK;
            }
            ResultDocument document = ResultDocument.read(source);
            Path file = HtmlReport.write(document, source);
            spec.commandLine().getOut().println("report: " + file);
            return PacerCommand.EXIT_OK;
        } catch (IOException | RuntimeException e) {
            spec.commandLine().getErr().println("pacer: " + e.getMessage());
            return PacerCommand.EXIT_BAD_INPUT;
        }
    }

    /** A suite's document from its results directory, or from a BenchmarkSuite that has a status. */
    private SuiteDocument suite(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            if (!Files.isRegularFile(path.resolve(SuiteDocument.FILE_NAME))) {
                throw new IOException(path + " holds no " + SuiteDocument.FILE_NAME + ": --format " + format
                        + " prints a suite's table; give a suite's results directory or a BenchmarkSuite with its status (kubectl get bs NAME -o yaml)");
            }
            return SuiteDocument.read(path);
        }
        if (!BenchmarkSuite.KIND.equals(BenchmarkRunYaml.kind(path))) {
            throw new IOException(path + " is not a BenchmarkSuite: --format " + format + " prints a suite's table");
        }
        BenchmarkSuite suite = BenchmarkRunYaml.readSuite(path);
        if (suite.getStatus() == null || suite.getStatus().servers == null || suite.getStatus().servers.isEmpty()) {
            throw new IOException(path + " has no status.servers yet: save it once the suite has figures (kubectl get bs "
                    + suite.getMetadata().getName() + " -o yaml)");
        }
        var status = suite.getStatus();
        return new SuiteDocument(suite.getMetadata().getName(), suite.getSpec(),
                new SuiteSummary(status.runs, status.servers, status.comparisons, Map.of(), status.comparisonSeries));
    }
}
