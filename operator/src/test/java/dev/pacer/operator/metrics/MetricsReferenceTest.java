package dev.pacer.operator.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.pacer.contract.Golden;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/metrics.md from the collectors themselves: the reconcile series as a registry holds them, the run
 * and suite series as {@link RunMetricsTest} and {@link SuiteMetricsTest} find the collectors export them (their golden
 * expositions), the history's from {@link HistoryMetricsTest}'s series: every family's name, type, labels and help.
 */
class MetricsReferenceTest {
    private static final Pattern HELP = Pattern.compile("^# HELP (\\S+) (.*)$");
    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? ");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"(?:[^\"\\\\]|\\\\.)*\"");

    /** One family: its type, help and the labels its samples carry. */
    record Family(String type, String help, TreeSet<String> labels) {
    }

    static Map<String, Family> families(String exposition) {
        Map<String, Family> families = new LinkedHashMap<>();
        for (String line : exposition.split("\n")) {
            Matcher m;
            if ((m = HELP.matcher(line)).matches()) {
                families.put(m.group(1), new Family("", m.group(2), new TreeSet<>()));
            } else if ((m = TYPE.matcher(line)).matches()) {
                Family f = families.get(m.group(1));
                families.put(m.group(1), new Family(m.group(2), f == null ? "" : f.help(), f == null ? new TreeSet<>() : f.labels()));
            } else if ((m = SAMPLE.matcher(line)).find() && m.group(2) != null) {
                String name = m.group(1);
                Family family = families.get(name);
                if (family == null) {
                    family = families.get(name.replaceAll("_(bucket|sum|count|created)$", ""));
                }
                if (family != null) {
                    Matcher label = LABEL.matcher(m.group(2));
                    while (label.find()) {
                        if (!label.group(1).equals("le")) {
                            family.labels().add(label.group(1));
                        }
                    }
                }
            }
        }
        return families;
    }

    static String reconcileExposition() throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        new ReconcileMetrics(registry);
        return RunMetricsTest.exposition(registry.scrape());
    }

    static String golden(String file) throws IOException {
        try (InputStream in = MetricsReferenceTest.class.getResourceAsStream("/golden/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String reference() throws IOException {
        StringBuilder page = new StringBuilder("""
                # Metrics reference

                *Reference, generated from the collectors (`MetricsReferenceTest`).* The operator serves them on its metrics
                port (`/metrics`); the chart's PodMonitor or ServiceMonitor has Prometheus scrape them
                ([installing.md](../installing.md)). A run's series appear once it finished and stay while the
                BenchmarkRun exists; a suite's while the BenchmarkSuite exists. Besides these, the operator's own JVM and
                process series (`jvm_*`, `process_*`).
                """);
        section(page, "Runs", families(golden("run-metrics.txt")));
        section(page, "Suites", families(golden("suite-metrics.txt")));
        section(page, "History (with the history's database, docs/history.md)",
                families(RunMetricsTest.exposition(HistoryMetrics.snapshots(List.of(HistoryMetricsTest.history())))));
        section(page, "The operator's reconciliations", families(reconcileExposition()));
        return page.toString();
    }

    private static void section(StringBuilder page, String title, Map<String, Family> families) {
        page.append("\n## ").append(title).append("\n\n| metric | type | labels | meaning |\n|---|---|---|---|\n");
        families.forEach((name, f) -> page.append("| `").append(name).append("` | ").append(f.type()).append(" | ")
                .append(String.join(", ", f.labels())).append(" | ").append(f.help().replace("|", "\\|")).append(" |\n"));
    }

    @Test
    void theReferenceListsEverySeriesTheCollectorsExport() throws IOException {
        Golden.assertDocMatches(reference(), "metrics.md");
    }
}
