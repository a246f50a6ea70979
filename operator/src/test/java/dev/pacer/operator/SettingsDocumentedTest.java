package dev.pacer.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Every variable of the operator's own environment (read where its settings are read) is in docs/operator.md's
 * Settings table and set by the chart's Deployment, and the table names none the operator does not read.
 */
class SettingsDocumentedTest {
    private static final Pattern VARIABLE = Pattern.compile("PACER_[A-Z_]+");
    /** Where the operator reads its own environment (the pods' variables, set by PodFactory, are the agents' contract). */
    private static final Set<Path> READERS = Set.of(Path.of("src/main/java/dev/pacer/operator/OperatorSettings.java"),
            Path.of("src/main/java/dev/pacer/operator/history/HistoryRecorder.java"));

    private static Set<String> variables(String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = VARIABLE.matcher(text);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    @Test
    void everyVariableTheOperatorReadsIsDocumentedAndSetByTheChart() throws IOException {
        Set<String> read = new TreeSet<>();
        for (Path reader : READERS) {
            read.addAll(variables(Files.readString(reader)));
        }
        String doc = Files.readString(Path.of("../docs/operator.md"));
        String table = doc.substring(doc.indexOf("## Settings"), doc.indexOf("A bad value stops the operator"));
        assertThat(variables(table)).as("docs/operator.md's Settings table").isEqualTo(read);
        Set<String> chartSets = new TreeSet<>(read);
        chartSets.remove("PACER_LEASE_NAMESPACE");   // its default, POD_NAMESPACE, is what the chart would set
        assertThat(variables(Files.readString(Path.of("../charts/pacer/templates/deployment.yaml"))))
                .as("the chart's Deployment sets every one").containsAll(chartSets);
    }
}
