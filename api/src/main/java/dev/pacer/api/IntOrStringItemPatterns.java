package dev.pacer.api;

import java.io.IOException;
import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * Build step after the CRD generator, which drops a {@code @Pattern} written on the items of a list of int-or-string
 * ({@code List<@Pattern(...) IntOrString>}): writes it into the items' schema. A pattern, unlike a CEL rule, has no cost
 * budget, so a suite's 32 rates are checked at admission (a CEL rule per item exceeded the API server's budget). The API
 * server applies a pattern to the string form only; the operator's validation refuses the rest (a negative number).
 *
 * <p>Usage: {@code IntOrStringItemPatterns GENERATED_CRD.yml...}
 */
public final class IntOrStringItemPatterns {
    /** Where the generator writes the properties of {@code spec}: {@code openAPIV3Schema.properties.spec.properties}. */
    private static final String SPEC = "          spec:";
    private static final String SPEC_PROPERTY = " ".repeat(14);

    private IntOrStringItemPatterns() {
    }

    public static void main(String[] args) throws IOException {
        for (String arg : args) {
            Path crd = Path.of(arg);
            String file = crd.getFileName().toString();
            // a schedule's template holds a suite's rates one level down, where no pattern is written: the operator's validation checks them
            Class<?> spec = file.startsWith(BenchmarkSuite.PLURAL + ".") ? BenchmarkSuiteSpec.class
                    : file.startsWith(BenchmarkSchedule.PLURAL + ".") ? BenchmarkScheduleSpec.class : BenchmarkRunSpec.class;
            Files.writeString(crd, patched(Files.readString(crd, StandardCharsets.UTF_8), itemPatterns(spec)), StandardCharsets.UTF_8);
        }
    }

    /** The spec's top-level {@code List<@Pattern IntOrString>} fields: JSON name to pattern. */
    static Map<String, String> itemPatterns(Class<?> spec) {
        Map<String, String> patterns = new LinkedHashMap<>();
        for (Field field : spec.getFields()) {
            if (field.getAnnotatedType() instanceof AnnotatedParameterizedType list && list.getAnnotatedActualTypeArguments().length == 1) {
                AnnotatedType item = list.getAnnotatedActualTypeArguments()[0];
                Pattern pattern = item.getAnnotation(Pattern.class);
                if (pattern != null && item.getType() == IntOrString.class) {
                    JsonProperty named = field.getAnnotation(JsonProperty.class);
                    patterns.put(named == null || named.value().isEmpty() ? field.getName() : named.value(), pattern.value());
                }
            }
        }
        return patterns;
    }

    static String patched(String yaml, Map<String, String> patterns) {
        List<String> lines = new ArrayList<>(yaml.lines().toList());
        int spec = lines.indexOf(SPEC);
        patterns.forEach((name, pattern) -> {
            if (spec < 0) {
                throw new IllegalStateException("no spec schema in the generated CRD");
            }
            int property = indexOf(lines, spec, SPEC_PROPERTY + name + ":");
            String itemsIndent = SPEC_PROPERTY + "  ";
            int items = indexOf(lines, property, itemsIndent + "items:");
            String itemIndent = itemsIndent + "  ";
            int end = items + 1;
            while (end < lines.size() && lines.get(end).startsWith(itemIndent)) {
                end++;
            }
            String line = itemIndent + "pattern: " + quoted(pattern);
            if (!lines.subList(items + 1, end).contains(line)) {
                int at = items + 1;
                while (at < end && (lines.get(at).startsWith(itemIndent + " ") || lines.get(at).substring(itemIndent.length()).compareTo("pattern:") < 0)) {
                    at++;
                }
                lines.add(at, line);
            }
        });
        return String.join("\n", lines) + (yaml.endsWith("\n") ? "\n" : "");
    }

    /** The line within the block that opens at {@code from}: it ends at the next line indented no deeper than its key. */
    private static int indexOf(List<String> lines, int from, String line) {
        int blockIndent = indent(lines.get(from));
        for (int i = from + 1; i < lines.size() && (lines.get(i).isBlank() || indent(lines.get(i)) > blockIndent); i++) {
            if (lines.get(i).equals(line)) {
                return i;
            }
        }
        throw new IllegalStateException("the generated CRD has no '" + line.strip() + "' where expected");
    }

    private static int indent(String line) {
        return line.length() - line.stripLeading().length();
    }

    /** A YAML double-quoted scalar, as the generator writes patterns. */
    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
