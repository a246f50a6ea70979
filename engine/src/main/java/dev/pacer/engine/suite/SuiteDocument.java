package dev.pacer.engine.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.pacer.api.BenchmarkSuiteSpec;
import dev.pacer.engine.json.DocumentJson;

/**
 * {@code suite.json} of a suite's results directory: the spec and the summary; each run's own results directory
 * ({@code result.json}, logs, report) lies beside it, named after the run.
 */
public record SuiteDocument(String suite, BenchmarkSuiteSpec spec, SuiteSummary summary) {
    public static final String FILE_NAME = "suite.json";

    public void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        DocumentJson.MAPPER.writeValue(directory.resolve(FILE_NAME).toFile(), this);
    }

    public static SuiteDocument read(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            throw new IOException(directory + " is not a suite's results directory: no " + FILE_NAME);
        }
        return DocumentJson.MAPPER.readValue(file.toFile(), SuiteDocument.class);
    }
}
