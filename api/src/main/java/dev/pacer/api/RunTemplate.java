package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

import static dev.pacer.api.BenchmarkRunSpec.DURATION_PATTERN;

/**
 * Everything of a run but its server: a {@link BenchmarkRunSpec} is this plus {@code server}, and a
 * {@link BenchmarkSuiteSpec}'s {@code template} is this, applied to each of its servers.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "duration(self.warmup) + duration(self.duration) < duration(self.timeout)",
        message = "must be longer than spec.warmup + spec.duration", fieldPath = ".timeout", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.rampUp) || duration(self.rampUp) <= duration(self.warmup)",
        message = "must be at most spec.warmup: the ramp is part of the warm-up", fieldPath = ".rampUp", reason = "FieldValueInvalid")
@ValidationRule(value = "duration(self.samplePeriod) >= duration('" + BenchmarkRunSpec.MIN_SAMPLE_PERIOD + "')",
        message = "must be at least " + BenchmarkRunSpec.MIN_SAMPLE_PERIOD, fieldPath = ".samplePeriod", reason = "FieldValueInvalid")
@ValidationRule(value = RunTemplate.CEL_PERIOD_TOO_SHORT + " || (duration(self.duration).getMilliseconds() % " + RunTemplate.CEL_PERIOD_MS
        + " == 0 && duration(self.duration).getMilliseconds() >= 2 * " + RunTemplate.CEL_PERIOD_MS + ")",
        message = "must be a multiple of spec.samplePeriod and at least two periods", fieldPath = ".duration", reason = "FieldValueInvalid")
@ValidationRule(value = RunTemplate.CEL_PERIOD_TOO_SHORT + " || duration(self.warmup).getMilliseconds() % " + RunTemplate.CEL_PERIOD_MS + " == 0",
        message = "must be a multiple of spec.samplePeriod", fieldPath = ".warmup", reason = "FieldValueInvalid")
@ValidationRule(value = "!(" + BenchmarkRunSpec.CEL_PIN_CLIENTS + ") || !has(self.clients.cpus) || string(self.clients.cpus).matches('^[1-9][0-9]*$')",
        message = "must be a whole number of CPUs when the clients are pinned (spec.placement.pinCpus or spec.placement.clients.pinCpus)",
        fieldPath = ".clients.cpus", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.clients.httpVersion) || self.clients.httpVersion != 'h2' || " + RunTemplate.CEL_HTTPS,
        message = BenchmarkRunSpec.H2_NEEDS_HTTPS_MESSAGE, fieldPath = ".clients.httpVersion", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.clients.httpVersion) || self.clients.httpVersion != 'h2c' || !(" + RunTemplate.CEL_HTTPS + ")",
        message = BenchmarkRunSpec.H2C_NOT_HTTPS_MESSAGE, fieldPath = ".clients.httpVersion", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.clients.connectionOrder) || !has(self.clients.httpVersion) || self.clients.httpVersion == 'http/1.1'",
        message = BenchmarkRunSpec.CONNECTION_ORDER_HTTP1_MESSAGE, fieldPath = ".clients.connectionOrder", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.clients.maxConcurrentStreams) || (has(self.clients.httpVersion) && self.clients.httpVersion != 'http/1.1')",
        message = BenchmarkRunSpec.STREAMS_HTTP2_MESSAGE, fieldPath = ".clients.maxConcurrentStreams", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.tls) || " + RunTemplate.CEL_HTTPS, message = BenchmarkRunSpec.TLS_NEEDS_HTTPS_MESSAGE,
        fieldPath = ".tls", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.criteria) || !has(self.criteria.maxSendLagP99) || !has(self.clients.minWakeupIntervalMicros) || "
        + "2 * self.clients.minWakeupIntervalMicros <= duration(self.criteria.maxSendLagP99).getMilliseconds() * 1000",
        message = BenchmarkRunSpec.WAKEUP_INTERVAL_SEND_LAG_MESSAGE, fieldPath = ".clients.minWakeupIntervalMicros", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.criteria) || !has(self.criteria.maxClientStall) || !has(self.clients.minWakeupIntervalMicros) || "
        + "self.clients.minWakeupIntervalMicros <= 1000 || "
        + "2 * ((self.clients.minWakeupIntervalMicros + 999) / 1000) <= duration(self.criteria.maxClientStall).getMilliseconds()",
        message = BenchmarkRunSpec.WAKEUP_INTERVAL_CLIENT_STALL_MESSAGE, fieldPath = ".criteria.maxClientStall", reason = "FieldValueInvalid")
public class RunTemplate {
    static final String CEL_HTTPS = "(has(self.request) && has(self.request.scheme) && self.request.scheme == 'https')";
    static final String CEL_PERIOD_MS = "duration(self.samplePeriod).getMilliseconds()";
    /** The sample period's own rule speaks for it; the rules dividing by it stay silent. */
    static final String CEL_PERIOD_TOO_SHORT = "duration(self.samplePeriod) < duration('" + BenchmarkRunSpec.MIN_SAMPLE_PERIOD + "')";

    @Required
    @JsonPropertyDescription("The load generators: each offers `rate` requests per second, open loop.")
    public BenchmarkRunSpec.Clients clients;

    @JsonPropertyDescription("The request every client sends.")
    public BenchmarkRunSpec.HttpRequest request = new BenchmarkRunSpec.HttpRequest();

    @Default(SpecDefaults.WARMUP)
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("Load before the measured window, excluded from the figures, e.g. 60s.")
    public String warmup = SpecDefaults.WARMUP;

    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("The first part of the warm-up, in which every client's rate grows linearly from 0 to `clients.rate`, "
            + "e.g. 10s; at most `warmup`. It lets the server's and the clients' JIT compile at a low rate instead of queueing a "
            + "backlog behind cold code. Unset: the full rate from the start. The measured window always runs at the full rate.")
    public String rampUp;

    @Required
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("Length of the measured window, e.g. 180s.")
    public String duration;

    @Default(SpecDefaults.SAMPLE_PERIOD)
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("Length of one histogram period, aligned to wall-clock multiples, e.g. 1s.")
    public String samplePeriod = SpecDefaults.SAMPLE_PERIOD;

    @JsonPropertyDescription("Where the pods go and whether their CPUs are pinned.")
    public BenchmarkRunSpec.Placement placement = new BenchmarkRunSpec.Placement();

    @JsonPropertyDescription("Optional pass/fail criteria; without them the verdict only says whether the measurement is valid.")
    public BenchmarkRunSpec.Criteria criteria = new BenchmarkRunSpec.Criteria();

    @Default(SpecDefaults.TIMEOUT)
    @Pattern(DURATION_PATTERN)
    @JsonPropertyDescription("The whole run fails after this, e.g. 30m.")
    public String timeout = SpecDefaults.TIMEOUT;

    @JsonPropertyDescription("TLS of an https run (spec.request.scheme https): protocol versions, session resumption, how often a "
            + "connection (and its handshake) is new, and the server's certificate. Unset with https: TLS 1.3 and 1.2, resumption "
            + "on, connections kept, a certificate generated for the run.")
    public Tls tls;

    @JsonPropertyDescription("What happens to pods and to the run after it finishes.")
    public BenchmarkRunSpec.Cleanup cleanup = new BenchmarkRunSpec.Cleanup();


    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Tls {
        @Size(min = 1, max = 2)
        @ValidationRule(value = "self.all(p, p in ['TLSv1.2', 'TLSv1.3'])", message = "must list TLSv1.3 and/or TLSv1.2")
        @JsonPropertyDescription("The protocol versions the clients offer and the server accepts: TLSv1.3, TLSv1.2 or both.")
        public List<String> protocols = new ArrayList<>(SpecDefaults.TLS_PROTOCOLS);

        @Default("" + SpecDefaults.TLS_SESSION_RESUMPTION)
        @JsonPropertyDescription("Whether a client resumes its earlier TLS session on a new connection (an abbreviated handshake); "
                + "false: every new connection makes a full handshake.")
        public Boolean sessionResumption = SpecDefaults.TLS_SESSION_RESUMPTION;

        @Min(0)
        @Max(1_000_000)
        @Default("" + SpecDefaults.TLS_REQUESTS_PER_CONNECTION)
        @JsonPropertyDescription("A connection is closed after this many responses and a new one opened, with its handshake: the "
                + "cost of handshakes under load. 0: never (each connection is opened and shakes hands once).")
        public Integer requestsPerConnection = SpecDefaults.TLS_REQUESTS_PER_CONNECTION;

        @JsonPropertyDescription("The server's certificate and key. Unset: generated for the run (a self-signed certificate the "
                + "clients trust for that run alone).")
        public TlsCertificate certificate;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.secretName) != has(self.directory)", message = BenchmarkRunSpec.CERTIFICATE_SOURCE_MESSAGE,
            reason = "FieldValueInvalid")
    public static class TlsCertificate {
        @Size(min = 1, max = 253)
        @JsonPropertyDescription("Kubernetes: a Secret of type kubernetes.io/tls in the run's namespace, holding tls.crt and tls.key; "
                + "the server pod mounts both, the clients tls.crt alone and trust the certificates in it.")
        public String secretName;

        @Size(min = 1, max = 4096)
        @JsonPropertyDescription("Locally: a directory holding tls.crt and tls.key in PEM (and ca.crt, when the clients are to trust "
                + "a CA rather than the certificate itself), relative to the spec's directory.")
        public String directory;
    }
}
