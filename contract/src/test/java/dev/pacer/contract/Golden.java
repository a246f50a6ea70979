package dev.pacer.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files in src/test/resources/golden. When a change is intended, delete the file: the test writes the new one
 * and fails once, for review.
 */
public final class Golden {
    private Golden() {
    }

    public static void assertMatches(String actual, String file) throws IOException {
        Path golden = Path.of("src/test/resources/golden", file);
        if (!Files.exists(golden)) {
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
            throw new AssertionError("wrote " + golden + ": review it and run again");
        }
        assertThat(actual).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }

    /**
     * A reference page of docs/ generated from the code (docs/reference/): the same rule, the page regenerated when
     * deleted, so that the docs cannot drift from the code.
     */
    public static void assertDocMatches(String actual, String page) throws IOException {
        Path doc = Path.of("..", "docs", "reference", page);
        if (!Files.exists(doc)) {
            Files.createDirectories(doc.getParent());
            Files.writeString(doc, actual, StandardCharsets.UTF_8);
            throw new AssertionError("wrote " + doc + ": review it and run again");
        }
        assertThat(actual).as("docs/reference/%s is generated from the code: delete it and run this test again to regenerate it", page)
                .isEqualTo(Files.readString(doc, StandardCharsets.UTF_8));
    }
}
