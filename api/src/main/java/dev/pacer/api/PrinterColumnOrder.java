package dev.pacer.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;

/**
 * Build step after the CRD generator, which sorts printer columns by their JSON path (AGE, a creation timestamp, would
 * come first): puts {@code kubectl get br}'s columns back in the order {@link BenchmarkRun} declares them, AGE last as
 * kubectl's own resources have it. It moves the generated YAML's column entries as text and changes nothing else.
 *
 * <p>Usage: {@code PrinterColumnOrder GENERATED_CRD.yml}
 */
public final class PrinterColumnOrder {
    private static final String BLOCK = "  - additionalPrinterColumns:";
    private static final String ITEM = "    - ";

    private PrinterColumnOrder() {
    }

    /** Each argument a generated CRD file; the kind's class (by the file's plural) gives the order. */
    public static void main(String[] args) throws IOException {
        for (String arg : args) {
            Path crd = Path.of(arg);
            String file = crd.getFileName().toString();
            Class<?> kind = file.startsWith(BenchmarkSuite.PLURAL + ".") ? BenchmarkSuite.class
                    : file.startsWith(BenchmarkSchedule.PLURAL + ".") ? BenchmarkSchedule.class : BenchmarkRun.class;
            List<String> order = Arrays.stream(kind.getAnnotationsByType(AdditionalPrinterColumn.class))
                    .map(AdditionalPrinterColumn::name).toList();
            Files.writeString(crd, reorder(Files.readString(crd, StandardCharsets.UTF_8), order), StandardCharsets.UTF_8);
        }
    }

    static String reorder(String yaml, List<String> order) {
        List<String> lines = new ArrayList<>(yaml.lines().toList());
        int start = lines.indexOf(BLOCK);
        if (start < 0) {
            return yaml;
        }
        int end = start + 1;
        while (end < lines.size() && (lines.get(end).startsWith(ITEM) || lines.get(end).startsWith("      "))) {
            end++;
        }
        List<List<String>> columns = new ArrayList<>();
        for (String line : lines.subList(start + 1, end)) {
            if (line.startsWith(ITEM)) {
                columns.add(new ArrayList<>());
            }
            columns.getLast().add(line);
        }
        columns.sort(Comparator.comparingInt(column -> {
            int index = order.indexOf(name(column));
            return index < 0 ? order.size() : index;
        }));
        List<String> result = new ArrayList<>(lines.subList(0, start + 1));
        columns.forEach(result::addAll);
        result.addAll(lines.subList(end, lines.size()));
        return String.join("\n", result) + (yaml.endsWith("\n") ? "\n" : "");
    }

    private static String name(List<String> column) {
        return column.stream().map(String::strip).map(l -> l.startsWith("- ") ? l.substring(2) : l)
                .filter(l -> l.startsWith("name: ")).map(l -> l.substring("name: ".length()).replace("\"", ""))
                .findFirst().orElse("");
    }
}
