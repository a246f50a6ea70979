package dev.pacer.engine.history;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.pacer.engine.report.RunManifest;

/**
 * The series a run belongs to: the runs of one comparable spec. From the manifest's effective spec (every default
 * applied), what enters the key is:
 * <ul>
 *   <li>the server: its image's repository (not its tag or digest), args, JVM options, port, CPU, memory and who
 *       measures it;</li>
 *   <li>the load: clients × rate, and each client's connections, sender threads, wake-up interval, connection order,
 *       HTTP version, CPU, memory and JVM options (not its image: pacer's own version is a point's attribute);</li>
 *   <li>the request (method, path, headers, timeout), warm-up, ramp-up, duration, sample period and criteria;</li>
 *   <li>the placement's shape: whether the server shared a node with a client, and on how many nodes the clients ran.</li>
 * </ul>
 * A new build of the same server (another tag or digest) is a new point of the series, not a new series; a run's
 * timeout and names are not in the key.
 *
 * @param id     the first 12 hex digits of the SHA-256 of the key's canonical JSON
 * @param label  what a person reads: the server's repository and args, the load, the request and the measured duration
 * @param fields the key itself
 */
public record SeriesKey(String id, String label, Map<String, Object> fields) {
    private static final ObjectMapper CANONICAL = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    @SuppressWarnings("unchecked")
    public static SeriesKey of(RunManifest manifest) {
        Map<String, Object> plan = manifest.plan();
        Map<String, Object> fields = new TreeMap<>();
        Map<String, Object> server = new TreeMap<>((Map<String, Object>) plan.get("server"));
        server.put("image", repository(String.valueOf(server.get("image"))));
        fields.put("server", server);
        fields.put("load", plan.get("load"));
        fields.put("clients", ((List<Map<String, Object>>) plan.get("clients")).stream().map(c -> {
            Map<String, Object> client = new TreeMap<>(c);
            client.remove("name");
            client.remove("image");
            return client;
        }).toList());
        for (String key : List.of("request", "warmupSeconds", "rampUpSeconds", "durationSeconds", "samplePeriodMs", "criteria")) {
            if (plan.containsKey(key)) {
                fields.put(key, plan.get(key));
            }
        }
        fields.put("placement", placement(manifest));
        String canonical;
        try {
            canonical = CANONICAL.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        String label = server.get("image") + (server.get("args") instanceof List<?> args && !args.isEmpty() ? " " + String.join(" ",
                args.stream().map(String::valueOf).toList()) : "") + " · " + plan.get("load")
                + (plan.get("request") instanceof Map<?, ?> request ? " · " + request.get("method") + " " + request.get("path") : "")
                + (plan.get("durationSeconds") instanceof Number seconds ? " · " + new java.math.BigDecimal(seconds.toString()).stripTrailingZeros().toPlainString() + " s" : "");
        return new SeriesKey(sha256(canonical).substring(0, 12), label, fields);
    }

    /** The repository of an image reference: without its tag and digest. */
    static String repository(String image) {
        String name = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
        int slash = name.lastIndexOf('/');
        int colon = name.lastIndexOf(':');
        return colon > slash ? name.substring(0, colon) : name;
    }

    private static Map<String, Object> placement(RunManifest manifest) {
        Map<String, Object> shape = new LinkedHashMap<>();
        if (manifest.roles() == null || manifest.roles().get("server") == null) {
            return shape;
        }
        String serverNode = manifest.roles().get("server").node();
        List<String> clientNodes = manifest.roles().entrySet().stream().filter(e -> e.getKey().startsWith("client-"))
                .map(e -> e.getValue().node()).filter(n -> n != null).distinct().toList();
        shape.put("serverSharesANodeWithAClient", serverNode != null && clientNodes.contains(serverNode));
        shape.put("clientNodes", clientNodes.size());
        return shape;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
