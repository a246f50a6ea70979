package dev.pacer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

class IntOrStringItemPatternsTest {
    /** The generator's layout: spec's properties at 14 spaces, their items' keys at 18. */
    private static final String SCHEMA = String.join("\n",
            "      openAPIV3Schema:",
            "        properties:",
            "          spec:",
            "            properties:",
            "              rates:",
            "                description: \"rates\"",
            "                items:",
            "                  anyOf:",
            "                  - type: \"integer\"",
            "                  - type: \"string\"",
            "                  x-kubernetes-int-or-string: true",
            "                maxItems: 32",
            "                type: \"array\"",
            "          status:",
            "            properties:",
            "              rates:",
            "                type: \"string\"",
            "");

    @Test
    void theSuiteRatesCarryTheRatePattern() {
        assertThat(IntOrStringItemPatterns.itemPatterns(BenchmarkSuiteSpec.class)).containsExactly(Map.entry("rates", BenchmarkRunSpec.RATE_PATTERN));
        assertThat(IntOrStringItemPatterns.itemPatterns(BenchmarkRunSpec.class)).isEmpty();
    }

    @Test
    void thePatternGoesIntoTheSpecItemsInKeyOrderOnce() {
        String schema = SCHEMA;
        String patched = IntOrStringItemPatterns.patched(schema, Map.of("rates", "^[0-9]+\\.?$"));
        assertThat(patched).isEqualTo(schema.replace("  - type: \"string\"\n",
                "  - type: \"string\"\n                  pattern: \"^[0-9]+\\\\.?$\"\n"));
        assertThat(IntOrStringItemPatterns.patched(patched, Map.of("rates", "^[0-9]+\\.?$"))).as("a second build changes nothing").isEqualTo(patched);
    }

    @Test
    void aSchemaOfAnotherShapeFailsTheBuild() {
        assertThatThrownBy(() -> IntOrStringItemPatterns.patched(SCHEMA, Map.of("speeds", "^x$")))
                .hasMessageContaining("speeds:");
    }

    @Test
    void aListOfThatNameOutsideTheSpecIsNotPatched() {
        // the spec's rates moved to the status: the same lines, under another key
        String specRates = SCHEMA.substring(SCHEMA.indexOf("              rates:"), SCHEMA.indexOf("          status:"));
        String statusRates = SCHEMA.replace(specRates, "").replace("              rates:\n                type: \"string\"\n", specRates);
        assertThat(statusRates.indexOf("\"array\"")).isGreaterThan(statusRates.indexOf("          status:"));
        assertThatThrownBy(() -> IntOrStringItemPatterns.patched(statusRates, Map.of("rates", "^x$")))
                .hasMessageContaining("rates:");
    }

    @Test
    void theCommittedSuiteCrdChecksEachRateAndEachServersQuantities() throws IOException {
        String crd = Files.readString(Path.of("../crds/benchmarksuites.pacer.dev-v1.yml"));
        assertThat(crd).contains(String.join("\n",
                "                items:",
                "                  anyOf:",
                "                  - type: \"integer\"",
                "                  - type: \"string\"",
                "                  pattern: \"" + BenchmarkRunSpec.RATE_PATTERN + "\"",
                "                  x-kubernetes-int-or-string: true"));
        assertThat(crd).contains("pattern: \"^([0-9]+(\\\\.[0-9]+)?|[0-9]+m)$\"")
                .contains("pattern: \"^[0-9]+(\\\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$\"");
    }
}
