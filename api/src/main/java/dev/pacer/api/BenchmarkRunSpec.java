package dev.pacer.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * What to run: the resource of docs/design.md, field for field. Quantities stay strings as the user wrote them ("60k", "180s").
 * The schema's patterns and CEL rules repeat {@link BenchmarkRunValidation}'s rules so that the API server rejects
 * a bad run before the operator sees it; {@link BenchmarkRunValidation} stays the reference with the friendlier text.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "duration(self.warmup) + duration(self.duration) < duration(self.timeout)",
        message = "spec.timeout must be longer than spec.warmup + spec.duration", fieldPath = ".timeout", reason = "FieldValueInvalid")
@ValidationRule(value = "!(" + BenchmarkRunSpec.CEL_PIN_SERVER + ") || self.server.cpus.matches('^[1-9][0-9]*$')",
        message = "spec.server.cpus must be a whole number of CPUs when the server is pinned (spec.placement.pinCpus or spec.placement.server.pinCpus)",
        fieldPath = ".server.cpus", reason = "FieldValueInvalid")
@ValidationRule(value = "!(" + BenchmarkRunSpec.CEL_PIN_CLIENTS + ") || !has(self.clients.cpus) || self.clients.cpus.matches('^[1-9][0-9]*$')",
        message = "spec.clients.cpus must be a whole number of CPUs when the clients are pinned (spec.placement.pinCpus or spec.placement.clients.pinCpus)",
        fieldPath = ".clients.cpus", reason = "FieldValueInvalid")
@ValidationRule(value = "self == oldSelf", message = "spec is immutable once created: delete the BenchmarkRun and create a new one",
        reason = "FieldValueForbidden")
public class BenchmarkRunSpec {
    /** CEL: placement.pinCpus (default true), unless the role's own pinCpus says otherwise. */
    static final String CEL_PIN_GLOBAL = "(!has(self.placement) || !has(self.placement.pinCpus) || self.placement.pinCpus)";
    static final String CEL_PIN_SERVER = "has(self.placement) && has(self.placement.server) && has(self.placement.server.pinCpus)"
            + " ? self.placement.server.pinCpus : " + CEL_PIN_GLOBAL;
    static final String CEL_PIN_CLIENTS = "has(self.placement) && has(self.placement.clients) && has(self.placement.clients.pinCpus)"
            + " ? self.placement.clients.pinCpus : " + CEL_PIN_GLOBAL;
    /** Durations as Go and CEL's duration() read them: 500ms, 60s, 5m, 1h, 1m30s. */
    public static final String DURATION_PATTERN = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";
    /** Requests per second: 500, 60k, 1.5M. */
    public static final String RATE_PATTERN = "^[0-9]+(\\.[0-9]+)?[kM]?$";
    /** CPUs as Kubernetes writes them: 2, 1.5, 500m. */
    public static final String CPU_PATTERN = "^([0-9]+(\\.[0-9]+)?|[0-9]+m)$";

    @Required
    @JsonPropertyDescription("The server under test.")
    public Server server;

    @Required
    @JsonPropertyDescription("The load generators: each offers `rate` requests per second, open loop.")
    public Clients clients;

    @JsonPropertyDescription("The request every client sends.")
    public HttpRequest request = new HttpRequest();

    @Default("60s")
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("Load before the measured window, excluded from the figures, e.g. 60s.")
    public String warmup = "60s";

    @Required
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("Length of the measured window, e.g. 180s.")
    public String duration;

    @Default("1s")
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("Length of one histogram period, aligned to wall-clock multiples, e.g. 1s.")
    public String samplePeriod = "1s";

    @JsonPropertyDescription("Where the pods go and whether their CPUs are pinned.")
    public Placement placement = new Placement();

    @JsonPropertyDescription("Optional pass/fail criteria; without them the verdict only says whether the measurement is valid.")
    public Criteria criteria = new Criteria();

    @Default("30m")
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("The whole run fails after this, e.g. 30m.")
    public String timeout = "30m";

    @JsonPropertyDescription("What happens to pods and to the run after it finishes.")
    public Cleanup cleanup = new Cleanup();

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Server {
        @Required
        @JsonPropertyDescription("Image of the server under test, e.g. pacer/server-jetty12:0.1.0. Locally: a server name (jetty12, jetty11, loom) or an image whose name contains one.")
        public String image;

        @JsonPropertyDescription("Arguments of the server, e.g. [\"--mode=core\"].")
        public List<String> args = new ArrayList<>();

        @JsonPropertyDescription("JVM options of the server, e.g. [\"-XX:+UseZGC\"].")
        public List<String> jvmOptions = new ArrayList<>();

        @Min(1)
        @Max(65535)
        @Default("8080")
        @JsonPropertyDescription("HTTP port of the server.")
        public Integer port = 8080;

        @Default("1")
        @Pattern(CPU_PATTERN)
        @Size(max = 16)
        @JsonPropertyDescription("CPUs of the server; a whole number >= 1 when the server is pinned (Guaranteed QoS, exclusive cores).")
        public String cpus = "1";

        @JsonPropertyDescription("Memory of the server, e.g. 4Gi.")
        public String memory = "1Gi";

        @JsonPropertyDescription("Labels copied onto the result metrics; dashboards compare servers by `server` and `variant`.")
        public Map<String, String> labels = new LinkedHashMap<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Clients {
        @Required
        @Min(1)
        @JsonPropertyDescription("Number of load-generator clients.")
        public Integer count;

        @Required
        @Pattern(RATE_PATTERN)
        @JsonPropertyDescription("Requests per second offered by EACH client, e.g. 60k; the total is count x rate.")
        public String rate;

        @Min(1)
        @Default("16")
        @JsonPropertyDescription("Connections per client.")
        public Integer connections = 16;

        @JsonPropertyDescription("Sender threads per client (0: one per 20k req/s, at most the client's CPUs).")
        public Integer senderThreads = 0;

        @Pattern("^(http/1\\.1|h2c)$")
        @JsonPropertyDescription("http/1.1 or h2c.")
        public String httpVersion = "http/1.1";

        @JsonPropertyDescription("Image of the load generator.")
        public String image = "pacer/loadgen:0.1.0";

        @Pattern(CPU_PATTERN)
        @JsonPropertyDescription("CPUs of each client; a whole number >= 1 when the clients are pinned; unpinned, 0 asks for no CPU (the shared pool).")
        public String cpus = "1";

        @JsonPropertyDescription("Memory of each client.")
        public String memory = "1Gi";

        @JsonPropertyDescription("JVM options of the load generator.")
        public List<String> jvmOptions = new ArrayList<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HttpRequest {
        @JsonPropertyDescription("HTTP method.")
        public String method = "GET";

        @JsonPropertyDescription("Path and query, e.g. /plaintext or /?sleepMicros=100.")
        public String path = "/";

        @JsonPropertyDescription("Extra request headers.")
        public Map<String, String> headers = new LinkedHashMap<>();

        @JsonPropertyDescription("Request body (for POST/PUT).")
        public String body = "";

        @JsonPropertyDescription("A request not answered after this is a timeout error, e.g. 30s.")
        public String timeout = "30s";
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Placement {
        @JsonPropertyDescription("Give each process exclusive CPUs (Kubernetes: Guaranteed QoS and the static CPU manager; locally: taskset).")
        public Boolean pinCpus = true;

        @JsonPropertyDescription("Never put a client on the server's node (Kubernetes only).")
        public Boolean separateNodes = true;

        @JsonPropertyDescription("Node selection of the server pod.")
        public RolePlacement server = new RolePlacement();

        @JsonPropertyDescription("Node selection of the client pods.")
        public RolePlacement clients = new RolePlacement();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class RolePlacement {
        @JsonPropertyDescription("Overrides placement.pinCpus for this role, e.g. a pinned server with unpinned clients on a small node.")
        public Boolean pinCpus;

        @JsonPropertyDescription("Node labels the pod requires.")
        public Map<String, String> nodeSelector = new LinkedHashMap<>();

        @JsonPropertyDescription("Tolerations, as in a pod spec.")
        public List<Map<String, Object>> tolerations = new ArrayList<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Criteria {
        @JsonPropertyDescription("The run fails when the server's overall P99 exceeds this, e.g. 10ms.")
        public String maxP99;

        @JsonPropertyDescription("The run fails when errors / requests exceed this ratio, e.g. 0 or 0.001.")
        public Double maxErrorRatio;

        @JsonPropertyDescription("The measurement is invalid when a client's achieved rate is below its offered rate by more than this, e.g. 1%.")
        public String rateTolerance = "1%";

        @JsonPropertyDescription("The measurement is invalid when a client's send lag P99 exceeds this, e.g. 10ms: the client could not keep up.")
        public String maxSendLagP99 = "10ms";
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Cleanup {
        @Pattern("^(Always|OnSuccess|Never)$")
        @JsonPropertyDescription("Delete pods Always, OnSuccess or Never.")
        public String pods = "OnSuccess";

        @JsonPropertyDescription("Delete the run this many seconds after it finished; unset keeps it.")
        public Long ttlSecondsAfterFinished;
    }
}
