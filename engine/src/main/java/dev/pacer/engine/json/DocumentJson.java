package dev.pacer.engine.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * How pacer writes and reads its own documents (a run's {@code result.json}, a suite's {@code suite.json}, the
 * history's files and columns): indented, and tolerant of fields a newer pacer added. One mapper, so that every document
 * is read as it was written.
 */
public final class DocumentJson {
    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private DocumentJson() {
    }
}
