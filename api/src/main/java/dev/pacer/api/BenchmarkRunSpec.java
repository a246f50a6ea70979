package dev.pacer.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.AnyType;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * What to run: the resource of docs/design.md, field for field. Quantities stay strings as the user wrote them ("60k",
 * "180s"); CPUs, rates and memory are int-or-string in the schema, as Kubernetes quantities are ({@code cpus: 2} and
 * {@code cpus: "2"} alike), and read as text here.
 * The schema's patterns and CEL rules repeat {@link BenchmarkRunValidation}'s rules so that the API server rejects
 * a bad run before the operator sees it; {@link BenchmarkRunValidation} stays the reference with the friendlier text.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(" + BenchmarkRunSpec.CEL_PIN_SERVER + ") || string(self.server.cpus).matches('^[1-9][0-9]*$')",
        message = "spec.server.cpus must be a whole number of CPUs when the server is pinned (spec.placement.pinCpus or spec.placement.server.pinCpus)",
        fieldPath = ".server.cpus", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.server.measure) || !(self.server.measure in ['probe', 'both']) || !has(self.clients.httpVersion)"
        + " || self.clients.httpVersion != 'h2c'", message = BenchmarkRunSpec.PROBE_H2C_MESSAGE, fieldPath = ".clients.httpVersion",
        reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.server.measure) || !(self.server.measure in ['probe', 'both']) || !has(self.request)"
        + " || !has(self.request.headers) || " + BenchmarkRunSpec.CEL_NO_EXPECT, message = BenchmarkRunSpec.PROBE_EXPECT_MESSAGE,
        fieldPath = ".request.headers", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.server.measure) || !(self.server.measure in ['probe', 'both']) || !has(self.request)"
        + " || !has(self.request.scheme) || self.request.scheme != 'https'", message = BenchmarkRunSpec.PROBE_TLS_MESSAGE,
        fieldPath = ".request.scheme", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.criteria) || !has(self.criteria.expectP99Integral) || !has(self.server.measure)"
        + " || self.server.measure != 'none'", message = BenchmarkRunSpec.EXPECTED_INTEGRAL_UNMEASURED_MESSAGE,
        fieldPath = ".criteria.expectP99Integral", reason = "FieldValueInvalid")
// the server's quantities are checked here rather than on its fields: a suite lists servers, and rules on the fields of
// array items cost more than the API server's CEL budget allows
@ValidationRule(value = "!has(self.server.cpus) || " + BenchmarkRunSpec.CEL_SERVER_CPUS,
        message = BenchmarkRunSpec.CPUS_MESSAGE, fieldPath = ".server.cpus", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.server.memory) || " + BenchmarkRunSpec.CEL_SERVER_MEMORY,
        message = BenchmarkRunSpec.MEMORY_MESSAGE, fieldPath = ".server.memory", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.server.port) || self.server.port != " + BenchmarkRunSpec.ADMIN_PORT, fieldPath = ".server.port",
        message = BenchmarkRunSpec.ADMIN_PORT_MESSAGE, reason = "FieldValueInvalid")
@JsonPropertyOrder({"server", "clients", "request", "warmup", "rampUp", "duration", "samplePeriod", "placement", "criteria", "timeout", "cleanup"})
public class BenchmarkRunSpec extends RunTemplate {
    /** CEL: placement.pinCpus (default true), unless the role's own pinCpus says otherwise. */
    static final String CEL_PIN_GLOBAL = "(!has(self.placement) || !has(self.placement.pinCpus) || self.placement.pinCpus)";
    static final String CEL_PIN_SERVER = "has(self.placement) && has(self.placement.server) && has(self.placement.server.pinCpus)"
            + " ? self.placement.server.pinCpus : " + CEL_PIN_GLOBAL;
    static final String CEL_PIN_CLIENTS = "has(self.placement) && has(self.placement.clients) && has(self.placement.clients.pinCpus)"
            + " ? self.placement.clients.pinCpus : " + CEL_PIN_GLOBAL;
    /** Durations as Go and CEL's duration() read them: 500ms, 60s, 5m, 1h, 1m30s. */
    public static final String DURATION_PATTERN = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";
    /** A whole rate below 1000M written without a suffix: 500. */
    static final String RATE_WHOLE = "[1-9][0-9]{0,8}";
    /** A whole rate written in thousands, at least 1: 60k, 1.5k, 0.5k (three decimals at most). */
    static final String RATE_K = "([1-9][0-9]{0,5}([.][0-9]{1,3})?|0[.][0-9]{0,2}[1-9])k";
    /** A whole rate written in millions, below 1000M: 1.5M, 0.25M (six decimals at most). */
    static final String RATE_M = "([1-9][0-9]{0,2}([.][0-9]{1,6})?|0[.][0-9]{0,5}[1-9])M";
    /**
     * Requests per second, whole, at least 1 and below 1000M: what {@link Quantities#parseRatePerSecond} takes, so that
     * the schema refuses what the planner refuses.
     */
    public static final String RATE_PATTERN = "^(" + RATE_WHOLE + "|" + RATE_K + "|" + RATE_M + ")$";
    /** The longest rate {@link #RATE_PATTERN} takes (999999.999k); bounds the cost of the schema's rule at admission. */
    public static final int MAX_RATE_CHARS = 11;
    /** A ratio from 0 to 1, or 0 % to 100 %: 1%, 0.5%, 0.01. */
    public static final String RATIO_PATTERN = "^((100(\\.0+)?|[0-9]{1,2}(\\.[0-9]+)?)%|0(\\.[0-9]+)?|1(\\.0+)?)$";
    /** A Kubernetes label key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
    public static final String LABEL_KEY_PATTERN = "^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
    /** A Kubernetes label value: empty, or at most 63 characters. */
    public static final String LABEL_VALUE_PATTERN = "^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$";
    /** The admin port of every pod's agent (the contract's default): the server's HTTP port must differ. */
    public static final int ADMIN_PORT = dev.pacer.contract.AgentContract.DEFAULT_ADMIN_PORT;
    static final String ADMIN_PORT_MESSAGE = "must not be " + ADMIN_PORT + ", the agents' admin port: use another, e.g. 8080";
    /** The kernel probe times one read of a request then the writes of its response on a connection: not h2c's streams. */
    static final String EXPECTED_INTEGRAL_UNMEASURED_MESSAGE = "needs the server measured: with spec.server.measure none there is no "
            + "P99 integral to check; measure it (agent, probe or both) or leave the criterion out";
    static final String PROBE_H2C_MESSAGE = "must not be h2c when spec.server.measure is probe or both: the kernel probe times "
            + "one request read then its response written per connection, and h2c multiplexes streams on one connection; "
            + "measure with the agent (measure: agent) or use http/1.1";
    /**
     * Over TLS the probe reads ciphertext: a handshake is read-then-write cycles that are no requests, and TLS records
     * need not line up with requests.
     */
    static final String PROBE_TLS_MESSAGE = "must not be https when spec.server.measure is probe or both: the kernel probe "
            + "times one request read then its response written at the socket, where TLS is ciphertext, and a handshake is "
            + "read-then-write cycles that are no requests; measure with the agent (measure: agent) or with none (measure: none)";
    /** h2 is HTTP/2 chosen by ALPN inside TLS; h2c is HTTP/2 in cleartext. */
    static final String H2_NEEDS_HTTPS_MESSAGE = "h2 is HTTP/2 over TLS (chosen by ALPN): set spec.request.scheme to https, "
            + "or use h2c for HTTP/2 in cleartext";
    /** HTTP/2 multiplexes its requests over Jetty's connection pool: which connection carries a request is not pacer's. */
    static final String STREAMS_HTTP2_MESSAGE = "applies to h2c and h2 only (HTTP/1.1 carries one request per connection at a "
            + "time): remove it, or set spec.clients.httpVersion to h2c or h2";
    static final String CONNECTION_ORDER_HTTP1_MESSAGE = "applies to http/1.1 only (one request per connection at a time): "
            + "over HTTP/2 the requests share the connections' streams; remove it, or set spec.clients.httpVersion to http/1.1";
    /** A request that waits for the next wake-up is late by up to one interval, which is send lag: half the limit leaves room. */
    static final String WAKEUP_INTERVAL_SEND_LAG_MESSAGE = "must be at most half of spec.criteria.maxSendLagP99 (in whole "
            + "milliseconds): requests batched on "
            + "one wake-up go out up to one interval late, counted as send lag, so the run would be invalid; lower the interval or "
            + "raise maxSendLagP99";
    /** The stall meter watches at the clients' wake-up interval and sees a stall less by up to it: half the limit leaves room. */
    static final String WAKEUP_INTERVAL_CLIENT_STALL_MESSAGE = "must be at least twice spec.clients.minWakeupIntervalMicros "
            + "rounded up to whole milliseconds, when that is above 1000: the clients' stall meter watches at their wake-up "
            + "interval in whole milliseconds and sees a stall less by up to it; raise maxClientStall or lower the interval";
    static final String H2C_NOT_HTTPS_MESSAGE = "h2c is HTTP/2 in cleartext: over https use h2 (or http/1.1), or set "
            + "spec.request.scheme to http";
    static final String CERTIFICATE_SOURCE_MESSAGE = "must name either secretName (Kubernetes) or directory (locally); unset, a "
            + "certificate is generated for the run";
    static final String TLS_NEEDS_HTTPS_MESSAGE = "applies to https only: set spec.request.scheme to https, or remove spec.tls";
    /**
     * An {@code Expect} header (100-continue) makes the server answer twice per request, an interim response before it
     * reads the body: two read-then-write cycles the kernel probe would count as two requests.
     */
    static final String PROBE_EXPECT_MESSAGE = "must not hold an Expect header when spec.server.measure is probe or both: the kernel "
            + "probe times one request read then its response written, and 'Expect: 100-continue' adds an interim response "
            + "before the body is read; remove the header, or measure with the agent (measure: agent)";
    /** CEL: no Expect header in its usual spellings (a lookup, not a walk over the keys, to stay in the CEL budget). */
    static final String CEL_NO_EXPECT = "!('Expect' in self.request.headers) && !('expect' in self.request.headers)"
            + " && !('EXPECT' in self.request.headers)";
    /** The same over a suite's template. */
    static final String CEL_NO_EXPECT_IN_TEMPLATE = "!('Expect' in self.template.request.headers) && !('expect' in self.template.request.headers)"
            + " && !('EXPECT' in self.template.request.headers)";
    /** The shortest sample period: shorter periods cost more than they show. */
    public static final String MIN_SAMPLE_PERIOD = "100ms";
    public static final int MAX_NODE_SELECTOR_LABELS = 32;
    /** CPUs as Kubernetes writes them: 2, 1.5, 500m. */
    public static final String CPU_PATTERN = "^([0-9]+(\\.[0-9]+)?|[0-9]+m)$";
    /** Memory as Kubernetes writes it: 1Gi, 512Mi, 1G, 1073741824. */
    public static final String MEMORY_PATTERN = "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$";
    /** The most clients a run may have: each is a pod with exclusive CPUs; more is a typo, not a benchmark. */
    public static final int MAX_CLIENTS = 64;
    public static final int MAX_CONNECTIONS = 10_000;
    public static final int MAX_SENDER_THREADS = 64;
    /** Half the default maxSendLagP99 (10 ms): the interval's own lateness, up to about one interval, leaves room. */
    public static final int MAX_MIN_WAKEUP_INTERVAL_MICROS = 5_000;
    /** Streams per HTTP/2 connection a run may ask for: the load generator's own bound (RunRequest). */
    public static final int MAX_CONCURRENT_STREAMS = 1_000;
    /** Arguments, JVM options, a command: more is a generated list gone wrong, not a benchmark. */
    public static final int MAX_LIST_ITEMS = 128;
    public static final int MAX_HEADERS = 64;
    /** Labels become labels of the result metrics: each one multiplies their series. */
    public static final int MAX_LABELS = 16;
    /** A request body, in characters: every client holds it, and the run must stay far under etcd's 1.5 MB per object. */
    public static final int MAX_BODY_CHARS = 65_536;
    /** A year: a run kept longer than that is kept for good (leave the TTL unset). */
    public static final long MAX_TTL_SECONDS = 31_536_000L;
    /** CEL over int-or-string fields: the patterns above, applied to the field's text. */
    static final String CEL_CPUS = "string(self).matches('^([0-9]+(\\\\.[0-9]+)?|[0-9]+m)$')";
    static final String CEL_MEMORY = "string(self).matches('^[0-9]+(\\\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$')";
    /** CEL over an int-or-string rate: {@link #RATE_PATTERN} in three rules, each within the API server's cost budget. */
    static final String CEL_RATE_WHOLE = "string(self).endsWith('k') || string(self).endsWith('M') || string(self).matches('^" + RATE_WHOLE + "$')";
    static final String CEL_RATE_K = "!string(self).endsWith('k') || string(self).matches('^" + RATE_K + "$')";
    static final String CEL_RATE_M = "!string(self).endsWith('M') || string(self).matches('^" + RATE_M + "$')";
    static final String RATE_MESSAGE = "must be whole requests per second from 1 to below 1000M, a number or a string such as 500, 60k or 1.5M";
    static final String CEL_SERVER_CPUS = "string(self.server.cpus).matches('^([0-9]+(\\\\.[0-9]+)?|[0-9]+m)$')";
    static final String CEL_SERVER_MEMORY = "string(self.server.memory).matches('^[0-9]+(\\\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$')";
    static final String CPUS_MESSAGE = "must be CPUs as Kubernetes writes them, e.g. 2, \"2\", 1.5 or 500m";
    static final String MEMORY_MESSAGE = "must be memory as Kubernetes writes it, e.g. 1Gi, 512Mi or 1073741824";

    @Required
    @JsonPropertyDescription("The server under test.")
    public Server server;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Server {
        @Required
        @Size(min = 1)
        @JsonPropertyDescription("Image of the server under test, e.g. pacer/server-jetty12:0.1.0. Locally: a server name (jetty12, jetty11, loom) or an image whose name contains one.")
        public String image;

        @Size(max = MAX_LIST_ITEMS)
        @JsonPropertyDescription("Arguments of the server, e.g. [\"--mode=core\"].")
        public List<String> args = new ArrayList<>();

        @Size(max = MAX_LIST_ITEMS)
        @JsonPropertyDescription("JVM options of the server, e.g. [\"-XX:+UseZGC\"].")
        public List<String> jvmOptions = new ArrayList<>();

        @Min(1)
        @Max(65535)
        @Default("" + SpecDefaults.SERVER_PORT)
        @JsonPropertyDescription("HTTP port of the server.")
        public Integer port = SpecDefaults.SERVER_PORT;

        @Default(SpecDefaults.CPUS)
        @SchemaFrom(type = IntOrString.class)
        @Pattern(CPU_PATTERN)
        @JsonPropertyDescription("CPUs of the server, a number or a string (2, \"1.5\", 500m); a whole number >= 1 when the server is pinned (Guaranteed QoS, exclusive cores).")
        public String cpus = SpecDefaults.CPUS;

        @SchemaFrom(type = IntOrString.class)
        @Pattern(MEMORY_PATTERN)
        @JsonPropertyDescription("Memory of the server (request and limit), e.g. 4Gi.")
        public String memory = SpecDefaults.MEMORY;

        @Size(max = MAX_LABELS)
        @JsonPropertyDescription("Labels copied onto the result metrics; dashboards compare servers by `server` and `variant`.")
        public Map<String, String> labels = new LinkedHashMap<>();

        @JsonPropertyDescription("Settings of the server's pod: pull secrets and policy, environment, annotations, priority class, affinity.")
        public PodSettings pod = new PodSettings();

        @Pattern(Measure.PATTERN)
        @Default(SpecDefaults.MEASURE)
        @JsonPropertyDescription("What measures the server: agent (pacer's agent in the server, its /healthz on port " + ADMIN_PORT + "), probe "
                + "(the kernel probe times every request at the socket: service and residence, for any server; needs Linux >= 6.3), "
                + "both (the agent's figures, the probe's beside them), none (no server histograms: the verdict rests on the clients).")
        public String measure = SpecDefaults.MEASURE;

        @Pattern("^/.*")
        @JsonPropertyDescription("Without the agent (measure probe or none), the server is ready when this path of its port answers 2xx; "
                + "unset: when its port accepts TCP connections.")
        public String readinessPath;

        @Size(min = 1, max = MAX_LIST_ITEMS)
        @JsonPropertyDescription("The server's command, replacing the image's entrypoint (the container's command). Locally: any program "
                + "to start instead of a pacer server, e.g. [nginx, -c, /etc/pacer/nginx.conf]; ${PORT} is replaced by spec.server.port, "
                + "${RUN_DIR} by the results directory and ${SPEC_DIR} by the spec's directory.")
        public List<String> command;
    }


    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Clients {
        @Required
        @Min(1)
        @Max(MAX_CLIENTS)
        @JsonPropertyDescription("Number of load-generator clients, 1 to 64.")
        public Integer count;

        @Required
        @SchemaFrom(type = IntOrString.class)
        @Size(max = MAX_RATE_CHARS)
        @ValidationRule(value = CEL_RATE_WHOLE, message = RATE_MESSAGE)
        @ValidationRule(value = CEL_RATE_K, message = RATE_MESSAGE)
        @ValidationRule(value = CEL_RATE_M, message = RATE_MESSAGE)
        @JsonPropertyDescription("Requests per second offered by EACH client, a number or a string (500, 60k, 1.5M); the total is count x rate.")
        public String rate;

        @Min(1)
        @Max(MAX_CONNECTIONS)
        @Default("" + SpecDefaults.CONNECTIONS)
        @JsonPropertyDescription("Connections per client, 1 to 10000.")
        public Integer connections = SpecDefaults.CONNECTIONS;

        @JsonPropertyDescription("Pacing shards per client, each a thread and a Jetty client of its own (0: one per 50k req/s, at most the client's CPUs and its connections).")
        @Min(0)
        @Max(MAX_SENDER_THREADS)
        public Integer senderThreads = SpecDefaults.SENDER_THREADS;

        @Pattern("^(roundRobin|lastUsedFirst)$")
        @JsonPropertyDescription("HTTP/1.1: which idle connection a request takes. lastUsedFirst (unset): the one released "
                + "last, as Jetty's HttpClient and Go's pools take theirs: a few connections carry the load and stay warm, the "
                + "others stay open and idle (idle-heavy keep-alive connections); one the server closes is replaced (by the "
                + "client's one retry loop, a connect per 100 ms, when it never carried a request). "
                + "roundRobin: the one idle longest, so every connection carries "
                + "its share in turn, as wrk2's do, and the server sees them all active; the client's CPU per request then "
                + "grows from about 1,000 connections on, each request touching a connection gone cold in its caches.")
        public String connectionOrder;

        @Min(1)
        @Max(MAX_CONCURRENT_STREAMS)
        @JsonPropertyDescription("h2c and h2: requests each connection carries at once, at most, 1 to 1000 (h2load's -m). Unset: 1, "
                + "a stream at a time, as HTTP/1.1 carries a request at a time. Above 1 the load is multiplexed, as HTTP/2 servers "
                + "are built for; the server's own limit (its SETTINGS_MAX_CONCURRENT_STREAMS) applies when lower. A request that "
                + "finds every stream busy waits for the next free one, as an HTTP/1.1 request waits for a connection: the wait "
                + "is in its response time, which runs from its intended send time.")
        public Integer maxConcurrentStreams;

        @Min(0)
        @Max(MAX_MIN_WAKEUP_INTERVAL_MICROS)
        @JsonPropertyDescription("Shortest sleep of a client's pacing loop, in microseconds, 0 to 5000: requests due closer together "
                + "than this go out together on one wake-up, each late by at most about this much (recorded as send lag, and in "
                + "the response time, which runs from the intended send time). Unset: 1000, as wrk2's 1 ms timers send, or half "
                + "of `criteria.maxSendLagP99` when that is less. Narrower: the load reaches the server as evenly as the "
                + "schedule spreads it, as Jetty's load generator sends it (50; 0: a wake-up per request), for about twice the "
                + "client's CPU per request at 10k-20k req/s. At most half of `criteria.maxSendLagP99` (in whole "
                + "milliseconds), or the batching alone could fail the run.")
        public Integer minWakeupIntervalMicros;

        @Pattern("^(http/1\\.1|h2c|h2)$")
        @JsonPropertyDescription("http/1.1 (over http or https), h2c (HTTP/2 in cleartext, prior knowledge) or h2 (HTTP/2 over TLS, "
                + "chosen by ALPN; needs request.scheme https).")
        public String httpVersion = SpecDefaults.HTTP_VERSION;

        @JsonPropertyDescription("Image of the load generator; unset: the operator's default, the chart's load generator from the chart's registry (locally: ignored).")
        public String image;

        @SchemaFrom(type = IntOrString.class)
        @ValidationRule(value = CEL_CPUS, message = CPUS_MESSAGE)
        @JsonPropertyDescription("CPUs of each client, a number or a string; a whole number >= 1 when the clients are pinned; unpinned, 0 asks for no CPU (the shared pool).")
        public String cpus = SpecDefaults.CPUS;

        @SchemaFrom(type = IntOrString.class)
        @ValidationRule(value = CEL_MEMORY, message = MEMORY_MESSAGE)
        @JsonPropertyDescription("Memory of each client (request and limit), e.g. 1Gi.")
        public String memory = SpecDefaults.MEMORY;

        @Size(max = MAX_LIST_ITEMS)
        @JsonPropertyDescription("JVM options of the load generator.")
        public List<String> jvmOptions = new ArrayList<>();

        @JsonPropertyDescription("Settings of every client's pod: pull secrets and policy, environment, annotations, priority class, affinity.")
        public PodSettings pod = new PodSettings();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HttpRequest {
        @Pattern("^(http|https)$")
        @Default(SpecDefaults.SCHEME)
        @JsonPropertyDescription("http, or https: TLS to the server's port, set up by spec.tls.")
        public String scheme = SpecDefaults.SCHEME;

        @Pattern("^[A-Z]+$")
        @JsonPropertyDescription("HTTP method.")
        public String method = SpecDefaults.METHOD;

        @Pattern("^/")
        @JsonPropertyDescription("Path and query, e.g. /plaintext or /?sleepMicros=100.")
        public String path = SpecDefaults.PATH;

        @Size(max = MAX_HEADERS)
        @JsonPropertyDescription("Extra request headers.")
        public Map<String, String> headers = new LinkedHashMap<>();

        @Size(max = MAX_BODY_CHARS)
        @JsonPropertyDescription("Request body (for POST/PUT).")
        public String body = SpecDefaults.BODY;

        @Pattern(DURATION_PATTERN)
        @JsonPropertyDescription("A request not answered after this is a timeout error, e.g. 30s.")
        public String timeout = SpecDefaults.REQUEST_TIMEOUT;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Placement {
        @JsonPropertyDescription("Give each process exclusive CPUs (Kubernetes: Guaranteed QoS and the static CPU manager; locally: taskset).")
        public Boolean pinCpus = SpecDefaults.PIN_CPUS;

        @JsonPropertyDescription("Never put a client on the server's node (Kubernetes only).")
        public Boolean separateNodes = SpecDefaults.SEPARATE_NODES;

        @JsonPropertyDescription("Node selection of the server pod.")
        public RolePlacement server = new RolePlacement();

        @JsonPropertyDescription("Node selection of the client pods.")
        public RolePlacement clients = new RolePlacement();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class RolePlacement {
        @JsonPropertyDescription("Overrides placement.pinCpus for this role, e.g. a pinned server with unpinned clients on a small node.")
        public Boolean pinCpus;

        @Size(max = MAX_NODE_SELECTOR_LABELS)
        @JsonPropertyDescription("Node labels the pod requires.")
        public Map<String, String> nodeSelector = new LinkedHashMap<>();

        @SchemaFrom(type = AnyType.class)
        @JsonPropertyDescription("Tolerations, as in a pod spec.")
        public List<Map<String, Object>> tolerations = new ArrayList<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Criteria {
        @Pattern(DURATION_PATTERN)
        @JsonPropertyDescription("The run fails when the server's overall P99 exceeds this, e.g. 10ms.")
        public String maxP99;

        @Min(0)
        @Max(1)
        @JsonPropertyDescription("The run fails when errors / requests exceed this ratio, e.g. 0 or 0.001.")
        public Double maxErrorRatio;

        @Pattern(RATIO_PATTERN)
        @JsonPropertyDescription("The measurement is invalid when a client's achieved rate is below its offered rate by more than this, e.g. 1%.")
        public String rateTolerance = SpecDefaults.RATE_TOLERANCE;

        @Pattern(DURATION_PATTERN)
        @JsonPropertyDescription("The measurement is invalid when a client's send lag P99 exceeds this, e.g. 10ms: the client could not keep up.")
        public String maxSendLagP99 = SpecDefaults.MAX_SEND_LAG_P99;

        @Pattern(DURATION_PATTERN)
        @JsonPropertyDescription("The measurement is invalid when a client stalled longer than this in the window (GC, safepoint or "
                + "descheduling, its clock watched at least every 1 ms, or every clients.minWakeupIntervalMicros in whole milliseconds "
                + "when that is longer; then at least twice that), e.g. 20ms. Unset: such a stall longer than maxSendLagP99 "
                + "is a warning.")
        public String maxClientStall;

        @JsonPropertyDescription("jetty-perf's gate: the run fails when the server's P99 integral lies outside a margin of an expected "
                + "value, unless, with at most toleratedOutliers outlier periods (P99 above twice the mean), the integral with those "
                + "periods counted as the mean lies inside it.")
        public ExpectedIntegral expectP99Integral;
    }

    /** An expected P99 integral, jetty-perf's baseline check: the value, its margin, the outlier periods it tolerates. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.value) || duration(self.value) > duration('0s')", message = "must be more than 0, e.g. 180ms",
            fieldPath = ".value", reason = "FieldValueInvalid")
    public static class ExpectedIntegral {
        @Required
        @Pattern(DURATION_PATTERN)
        @JsonPropertyDescription("The expected P99 integral (the sum over the measured periods of each period's P99), as a duration, "
                + "e.g. 180ms or 6.588ms.")
        public String value;

        @Pattern(RATIO_PATTERN)
        @JsonPropertyDescription("How far from the value the integral may lie, a share of it, e.g. 10% (the default).")
        public String margin = SpecDefaults.EXPECTED_INTEGRAL_MARGIN;

        @Min(0)
        @Max(1000)
        @JsonPropertyDescription("Outlier periods (P99 above twice the mean of the periods' P99s) the corrected integral may replace by "
                + "the mean, 0 to 1000; jetty-perf tolerates 2 (the default).")
        public Integer toleratedOutliers = SpecDefaults.EXPECTED_INTEGRAL_OUTLIERS;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Cleanup {
        @Pattern("^(Always|OnSuccess|Never)$")
        @JsonPropertyDescription("Delete pods Always, OnSuccess or Never.")
        public String pods = SpecDefaults.CLEANUP_PODS;

        @Min(0)
        @Max(MAX_TTL_SECONDS)
        @JsonPropertyDescription("Delete the run this many seconds after it finished, 0 to 31536000 (a year); unset keeps it.")
        public Long ttlSecondsAfterFinished;
    }
}
