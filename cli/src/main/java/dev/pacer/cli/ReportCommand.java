package dev.pacer.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.pacer.engine.report.HtmlReport;
import dev.pacer.engine.report.ResultDocument;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code pacer report DIR}: renders report.html again from result.json. */
@Command(name = "report", description = "Render report.html again from a results directory (suite.html from a suite's).")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "A results directory (holds result.json).")
    Path directory;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try {
            if (java.nio.file.Files.isRegularFile(directory.resolve(dev.pacer.engine.suite.SuiteDocument.FILE_NAME))) {
                Path file = dev.pacer.engine.report.SuiteReport.write(dev.pacer.engine.suite.SuiteDocument.read(directory), directory);
                spec.commandLine().getOut().println("report: " + file);
                return PacerCommand.EXIT_OK;
            }
            ResultDocument document = ResultDocument.read(directory);
            Path file = HtmlReport.write(document, directory);
            spec.commandLine().getOut().println("report: " + file);
            return PacerCommand.EXIT_OK;
        } catch (java.io.IOException e) {
            spec.commandLine().getErr().println("pacer: " + e.getMessage());
            return PacerCommand.EXIT_BAD_INPUT;
        }
    }
}
