package dev.pacer.cli;

import java.io.IOException;
import java.util.Map;

import dev.pacer.contract.Golden;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** docs/reference/cli.md is picocli's own usage of every command: regenerated from the code, never written by hand. */
class CliReferenceTest {
    /** Wide enough for the options' descriptions; fixed, so the page does not depend on a terminal. */
    static final int WIDTH = 110;

    static String reference() {
        CommandLine pacer = new CommandLine(new PacerCommand());
        StringBuilder page = new StringBuilder("""
                # Command line reference

                *Reference, generated from the code (`CliReferenceTest`): what `./pacer help COMMAND` prints.*

                Exit codes: %d done (a run's verdict Passed), %d a run's verdict Failed or Invalid, %d bad input (spec, options),
                %d a run could not be completed, %d a regression, a baseline missed or a confirmed change (`compare`, `history`).

                """.formatted(PacerCommand.EXIT_OK, PacerCommand.EXIT_VERDICT_NOT_PASSED, PacerCommand.EXIT_BAD_INPUT,
                PacerCommand.EXIT_RUN_FAILED, CompareCommand.EXIT_REGRESSION));
        page.append("## pacer\n\n```text\n").append(usage(pacer)).append("```\n");
        for (Map.Entry<String, CommandLine> command : pacer.getSubcommands().entrySet()) {
            if (command.getKey().equals("help")) {
                continue;
            }
            page.append("\n## pacer ").append(command.getKey()).append("\n\n```text\n").append(usage(command.getValue())).append("```\n");
        }
        return page.toString();
    }

    private static String usage(CommandLine command) {
        command.setUsageHelpWidth(WIDTH);
        command.setUsageHelpLongOptionsMaxWidth(40);
        return command.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("[ \\t]+\n", "\n");
    }

    @Test
    void theReferenceIsTheCommandsOwnUsage() throws IOException {
        Golden.assertDocMatches(reference(), "cli.md");
    }
}
