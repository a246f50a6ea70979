package dev.pacer.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.pacer.engine.analysis.HistogramLogs;
import dev.pacer.engine.analysis.PeriodHistogram;
import dev.pacer.engine.history.HistoryPoint;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.engine.report.RunManifest;
import org.HdrHistogram.Histogram;

/**
 * A finished run as the history keeps it: its point (series, figures, spectrum), what ran (spec digest, server image
 * and digest, node, kernel, JVM), its result, and each histogram series merged over the measured window and
 * compressed. Made from a results directory, the same wherever the run ran ({@code pacer run} writes one, the
 * operator's artifact store keeps one per run).
 *
 * @param source     what identifies the run once: namespace/name/uid on a cluster, the directory's path locally
 * @param histograms each {@code *.hlog} of the directory by its name without the extension (server,
 *                   client-0.responseTime, ...), merged over the window, in HdrHistogram's compressed encoding
 */
public record RecordedRun(String source, HistoryPoint point, ResultDocument document, String specDigest,
                          Map<String, byte[]> histograms) {
    private static final ObjectMapper CANONICAL = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    private static final String LOG_SUFFIX = ".hlog";

    /** The run of a results directory; an IOException says why it is not one the history keeps. */
    public static RecordedRun fromResultsDirectory(Path directory, String source) throws IOException {
        ResultDocument document = ResultDocument.read(directory);
        Map<String, String> logs = new TreeMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path log : files.filter(f -> f.getFileName().toString().endsWith(LOG_SUFFIX)).sorted().toList()) {
                logs.put(log.getFileName().toString(), Files.readString(log, StandardCharsets.US_ASCII));
            }
        }
        return of(document, logs, source);
    }

    /**
     * The run of a result and the files of its results directory by name (as the operator publishes them: the
     * {@code .hlog} files are read, the others left); an IOException says why it is not one the history keeps.
     */
    public static RecordedRun of(ResultDocument document, Map<String, String> files, String source) throws IOException {
        String reason = HistoryPoint.reasonNotAPoint(document);
        if (reason != null) {
            throw new IOException(source + " is not kept in the history: " + reason);
        }
        Map<String, byte[]> histograms = new TreeMap<>();
        long start = document.window().startEpochMs;
        long end = document.window().endEpochMs;
        for (Map.Entry<String, String> file : new TreeMap<>(files).entrySet()) {
            String name = file.getKey();
            if (name.endsWith(LOG_SUFFIX)) {
                Histogram merged = merged(HistogramLogs.parse(file.getValue(), document.samplePeriodMs()), start, end);
                if (merged != null) {
                    histograms.put(name.substring(0, name.length() - LOG_SUFFIX.length()), compressed(merged));
                }
            }
        }
        return new RecordedRun(source, HistoryPoint.of(document).orElseThrow(), document, specDigest(document.manifest()), histograms);
    }

    /** The periods that lie in the window, merged; null when none does. */
    static Histogram merged(List<PeriodHistogram> periods, long startEpochMs, long endEpochMs) {
        Histogram merged = null;
        for (PeriodHistogram p : periods) {
            if (p.startEpochMs() >= startEpochMs && p.endEpochMs() <= endEpochMs) {
                if (merged == null) {
                    merged = new Histogram(p.histogram().getNumberOfSignificantValueDigits());
                }
                merged.add(p.histogram());
            }
        }
        return merged;
    }

    static byte[] compressed(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes);
        return bytes;
    }

    /** A histogram as {@link #compressed} encoded it. */
    public static Histogram decompressed(byte[] bytes) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalArgumentException("not a compressed HdrHistogram", e);
        }
    }

    /** The SHA-256 of the effective spec (every default applied), as canonical JSON. */
    static String specDigest(RunManifest manifest) {
        try {
            byte[] canonical = CANONICAL.writeValueAsBytes(manifest.plan());   // every map's keys sorted, nested ones too
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The server role of the manifest, or null. */
    RunManifest.Role server() {
        return document.manifest().roles() == null ? null : document.manifest().roles().get("server");
    }
}
