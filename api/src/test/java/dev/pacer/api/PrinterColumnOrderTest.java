package dev.pacer.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class PrinterColumnOrderTest {

    @Test
    void columnsFollowTheDeclaredOrderAndNothingElseMoves() {
        String head = "spec:\n  versions:\n  - additionalPrinterColumns:\n";
        String age = "    - jsonPath: \".metadata.creationTimestamp\"\n      name: \"AGE\"\n      type: \"date\"\n";
        String load = "    - description: \"the load\"\n      jsonPath: \".status.load\"\n      name: \"LOAD\"\n      type: \"string\"\n";
        String tail = "    name: \"v1alpha1\"\n";
        assertThat(PrinterColumnOrder.reorder(head + age + load + tail, List.of("LOAD", "AGE"))).isEqualTo(head + load + age + tail);
    }

    @Test
    void theCommittedCrdListsAgeLastAndTheWideColumnsAtPriorityOne() throws IOException {
        String crd = Files.readString(Path.of("../crds/benchmarkruns.pacer.dev-v1.yml"));
        List<String> names = crd.lines().map(String::strip).filter(l -> l.startsWith("name: \"") && l.matches("name: \"[A-Z0-9-]+\""))
                .map(l -> l.substring(7, l.length() - 1)).toList();
        assertThat(names).containsExactly("LOAD", "PHASE", "VERDICT", "P99-INT-US", "MAX-INT-US", "SERVER", "ACHIEVED", "ERRORS", "AGE");
        assertThat(crd).contains("categories:\n    - \"pacer\"");
    }
}
