package dev.pacer.cli;

import java.io.PrintStream;
import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code pacer}: {@code run} a BenchmarkRun locally, re-render a {@code report}, {@code compare} results, follow their {@code history}, {@code fetch} a
 * cluster run's kept results.
 * Exit codes: 0 run done and verdict Passed (or command succeeded), 1 verdict Failed or Invalid, 2 bad input
 * (spec, options), 3 the run could not be completed.
 */
@Command(name = "pacer", mixinStandardHelpOptions = true, version = "pacer 0.1.0",
        description = "Distributed HTTP server benchmarks: open-loop load, server-side per-period histograms, P99 and max integrals.",
        subcommands = {RunCommand.class, ReportCommand.class, CompareCommand.class, HistoryCommand.class, FetchCommand.class, CheckCommand.class,
                CommandLine.HelpCommand.class})
public final class PacerCommand implements Runnable {
    public static final int EXIT_OK = 0;
    public static final int EXIT_VERDICT_NOT_PASSED = 1;
    public static final int EXIT_BAD_INPUT = 2;
    public static final int EXIT_RUN_FAILED = 3;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: run, report, compare, history, fetch or check");
    }

    /** Parses and executes; the streams are parameters so that tests run it in-process. */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        CommandLine commandLine = new CommandLine(new PacerCommand());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.setUnmatchedArgumentsAllowed(false);
        commandLine.setExecutionExceptionHandler((exception, cmd, parseResult) -> {
            err.println("pacer: " + exception.getMessage());
            return EXIT_RUN_FAILED;
        });
        return commandLine.execute(args);
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }
}
