package dev.pacer.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/** Reads a BenchmarkRun YAML file as the operator would see it; unknown fields are errors that name the field. */
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
        try {
            BenchmarkRun run = YAML.readValue(in, BenchmarkRun.class);
            if (run == null) {
                throw new InvalidSpecException(source + ": empty document");
            }
            if (run.getKind() != null && !BenchmarkRun.KIND.equals(run.getKind())) {
                throw new InvalidSpecException(source + ": kind must be " + BenchmarkRun.KIND + ", was " + run.getKind());
            }
            return run;
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
