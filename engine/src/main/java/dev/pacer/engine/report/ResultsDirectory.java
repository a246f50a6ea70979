package dev.pacer.engine.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A run's results directory, the same wherever the run ran: {@code result.json}, {@code report.html}, every raw
 * interval log ({@code .hlog}) and the window's percentile distributions ({@code .hgrm}). {@code pacer run} writes it
 * locally, the operator into its artifact store, and {@code pacer fetch} rebuilds it from there.
 */
public final class ResultsDirectory {
    /** The names a results directory holds: plain file names, no path. */
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,200}");

    private ResultsDirectory() {
    }

    /** Writes the document, the files beside it and the report. */
    public static void write(Path directory, ResultDocument document, Map<String, String> files) throws IOException {
        Files.createDirectories(directory);
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.writeString(directory.resolve(checkedName(file.getKey())), file.getValue());
        }
        HtmlReport.write(document, directory);
        // the document last: a directory with result.json is complete
        document.write(directory);
    }

    /** Whether a name may be a file of a results directory (no separators, no leading dot). */
    public static boolean isFileName(String name) {
        return name != null && FILE_NAME.matcher(name).matches() && !name.contains("..");
    }

    public static String checkedName(String name) throws IOException {
        if (!isFileName(name)) {
            throw new IOException("'" + name + "' is not a results file name");
        }
        return name;
    }
}
