package dev.pacer.cli;

import java.nio.file.Path;
import java.util.List;

/**
 * A server command of a local run ({@code spec.server.command}), with its placeholders replaced: {@code ${PORT}} by the
 * server's port, {@code ${RUN_DIR}} by the results directory (for pid files and logs a server must write somewhere),
 * {@code ${SPEC_DIR}} by the spec's directory (for a config file kept beside the spec).
 */
final class LocalCommand {
    private LocalCommand() {
    }

    static List<String> expand(List<String> command, int port, Path runDirectory, Path specDirectory) {
        return command.stream().map(arg -> arg
                .replace("${PORT}", Integer.toString(port))
                .replace("${RUN_DIR}", runDirectory.toAbsolutePath().toString())
                .replace("${SPEC_DIR}", specDirectory.toAbsolutePath().toString())).toList();
    }
}
