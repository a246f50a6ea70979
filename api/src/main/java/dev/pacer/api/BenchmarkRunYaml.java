package dev.pacer.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.CustomResource;

/** Reads a BenchmarkRun or BenchmarkSuite YAML file as the operator would see it; unknown fields are errors that name the field. */
public final class BenchmarkRunYaml {
    public static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private BenchmarkRunYaml() {
    }

    public static BenchmarkRun read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        }
    }

    public static BenchmarkRun read(InputStream in, String source) throws IOException {
        return read(in, source, BenchmarkRun.class, BenchmarkRun.KIND);
    }

    public static BenchmarkSuite readSuite(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString(), BenchmarkSuite.class, BenchmarkSuite.KIND);
        }
    }

    public static BenchmarkSchedule readSchedule(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString(), BenchmarkSchedule.class, BenchmarkSchedule.KIND);
        }
    }

    /** The document's {@code kind}: BenchmarkRun (also when absent) or BenchmarkSuite. */
    public static String kind(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            JsonNode node = YAML.readTree(in);
            return node == null || node.path("kind").isMissingNode() ? BenchmarkRun.KIND : node.path("kind").asText();
        } catch (JsonProcessingException e) {
            throw new InvalidSpecException(file + ": not YAML: " + e.getOriginalMessage());
        }
    }

    private static <T extends CustomResource<?, ?>> T read(InputStream in, String source, Class<T> type,
                                                                                       String kind) throws IOException {
        try {
            T resource = YAML.readValue(in, type);
            if (resource == null) {
                throw new InvalidSpecException(source + ": empty document");
            }
            if (resource.getKind() != null && !kind.equals(resource.getKind())) {
                throw new InvalidSpecException(source + ": kind must be " + kind + ", was " + resource.getKind());
            }
            return resource;
        } catch (UnrecognizedPropertyException e) {
            throw new InvalidSpecException(source + ": " + path(e) + ": unknown field; known fields: " + e.getKnownPropertyIds());
        } catch (JsonMappingException e) {
            throw new InvalidSpecException(source + ": " + path(e) + ": " + e.getOriginalMessage().split("\n")[0]);
        }
    }

    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(reference.getFieldName());
            } else {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.isEmpty() ? "document" : path.toString();
    }

    /** A spec that cannot be read; the message names the field. */
    public static final class InvalidSpecException extends IOException {
        public InvalidSpecException(String message) {
            super(message);
        }
    }
}
