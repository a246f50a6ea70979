package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * The suite: a run template, the servers, and either fixed rates (each with {@code repetitions}) or a sweep. The
 * schema's rules repeat {@link BenchmarkSuiteValidation}'s, which stays the reference with the friendlier text.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.rates) && has(self.sweep))", message = "spec.rates and spec.sweep exclude each other: fixed rates, or a sweep",
        reason = "FieldValueInvalid")
@ValidationRule(value = "self.servers.all(a, self.servers.filter(b, b.name == a.name).size() == 1)",
        message = "must name each server once: names must differ", fieldPath = ".servers", reason = "FieldValueDuplicate")
@ValidationRule(value = "self.servers.all(s, !has(s.port) || s.port != " + BenchmarkRunSpec.ADMIN_PORT + ")",
        message = "a server's port " + BenchmarkRunSpec.ADMIN_PORT_MESSAGE, fieldPath = ".servers", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.template.clients.httpVersion) || self.template.clients.httpVersion != 'h2c'"
        + " || self.servers.all(s, !has(s.measure) || !(s.measure in ['probe', 'both']))",
        message = "spec.template.clients.httpVersion " + BenchmarkRunSpec.PROBE_H2C_MESSAGE, fieldPath = ".template.clients.httpVersion",
        reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.template.request) || !has(self.template.request.scheme) || self.template.request.scheme != 'https'"
        + " || self.servers.all(s, !has(s.measure) || !(s.measure in ['probe', 'both']))",
        message = "spec.template.request.scheme " + BenchmarkRunSpec.PROBE_TLS_MESSAGE, fieldPath = ".template.request.scheme",
        reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.template.request) || !has(self.template.request.headers) || "
        + BenchmarkRunSpec.CEL_NO_EXPECT_IN_TEMPLATE
        + " || self.servers.all(s, !has(s.measure) || !(s.measure in ['probe', 'both']))",
        message = "spec.template.request.headers " + BenchmarkRunSpec.PROBE_EXPECT_MESSAGE, fieldPath = ".template.request.headers",
        reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.sweep) || !has(self.sweep.confirm) || duration(self.sweep.confirm) > duration(self.template.duration)",
        message = "must be longer than spec.template.duration: the confirmation is a longer run at the rate found",
        fieldPath = ".sweep.confirm", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.sweep) || !has(self.sweep.confirm) || duration(self.template.samplePeriod) < duration('"
        + BenchmarkRunSpec.MIN_SAMPLE_PERIOD + "') || duration(self.sweep.confirm).getMilliseconds() % "
        + "duration(self.template.samplePeriod).getMilliseconds() == 0",
        message = "must be a multiple of spec.template.samplePeriod", fieldPath = ".sweep.confirm", reason = "FieldValueInvalid")
@ValidationRule(value = "has(self.comparison) && has(self.comparison.series) || !self.servers.exists(s, has(s.measure) && s.measure == 'probe')"
        + " || self.servers.all(s, has(s.measure) && s.measure in ['probe', 'both', 'none'])",
        message = BenchmarkSuiteSpec.UNNAMED_SERIES_MESSAGE, fieldPath = ".servers", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.comparison) || !has(self.comparison.series) || self.comparison.series != 'processing'"
        + " || self.servers.all(s, !has(s.measure) || s.measure in ['agent', 'both'])",
        message = BenchmarkSuiteSpec.PROCESSING_MESSAGE, fieldPath = ".comparison.series", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.comparison) || !has(self.comparison.series) || self.comparison.series == 'processing'"
        + " || self.servers.all(s, has(s.measure) && s.measure in ['probe', 'both'])",
        message = BenchmarkSuiteSpec.PROBE_SERIES_MESSAGE, fieldPath = ".comparison.series", reason = "FieldValueInvalid")
@ValidationRule(value = "!has(self.rates) || self.rates.all(r, type(r) == string || r >= 1)",
        message = "must each be at least 1 request per second", fieldPath = ".rates", reason = "FieldValueInvalid")
public class BenchmarkSuiteSpec {
    public static final int MAX_SERVERS = 32;
    public static final int MAX_RATES = 32;
    public static final int MAX_REPETITIONS = 20;
    static final String UNNAMED_SERIES_MESSAGE = "a server measured by the probe alone has no processing series, so the suite compares the "
            + "probe's service: give every other server measure: both (or probe), or name the series in spec.comparison.series";
    static final String PROCESSING_MESSAGE = "processing is the agent's series: every server needs measure: agent or both, or compare "
            + "service (the probe's) with every server at measure: probe or both";
    static final String PROBE_SERIES_MESSAGE = "service and residence are the kernel probe's series: every server needs measure: probe or both";
    /** A server's name in a suite: part of its runs' names. */
    public static final String NAME_PATTERN = "^[a-z0-9]([-a-z0-9]{0,22}[a-z0-9])?$";

    @Required
    @JsonPropertyDescription("Everything of a BenchmarkRun's spec but the server: clients, request, warm-up, duration, placement, criteria, timeout, cleanup.")
    public RunTemplate template;

    @Required
    @Size(min = 1, max = MAX_SERVERS)
    @JsonPropertyDescription("The servers compared, in the order they run; each is a BenchmarkRun's spec.server with a name.")
    public List<SuiteServer> servers = new ArrayList<>();

    @Size(min = 1, max = MAX_RATES)
    @JsonPropertyDescription("Fixed rates per client, each run for every server (unset: the template's clients.rate), e.g. [\"20k\", \"60k\"].")
    public List<@Pattern(BenchmarkRunSpec.RATE_PATTERN) IntOrString> rates;

    @JsonPropertyDescription("Instead of fixed rates: rising rates per server until the criteria fail, then a bisection to the highest rate that passes.")
    public Sweep sweep;

    @JsonPropertyDescription("How the servers are compared: which one series of theirs.")
    public Comparison comparison;

    @Min(1)
    @Max(MAX_REPETITIONS)
    @Default("1")
    @JsonPropertyDescription("Runs of each server at each fixed rate, 1 to 20; the figures are given with their median and spread. A sweep runs each rate once.")
    public Integer repetitions = 1;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class SuiteServer extends BenchmarkRunSpec.Server {
        @Required
        @Size(min = 1, max = 24)
        @Pattern(NAME_PATTERN)
        @JsonPropertyDescription("A short name (lowercase letters, digits, '-', at most 24): the server's runs are <suite>-<name>-<rate>-<repetition>.")
        public String name;

        @JsonPropertyDescription("This server's expected P99 integral (jetty-perf's gate), its runs' spec.criteria.expectP99Integral: "
                + "each server has its own baseline. It replaces the template's as a whole: a margin or toleratedOutliers left out takes "
                + "its default (10%, 2), not the template's.")
        public BenchmarkRunSpec.ExpectedIntegral expectP99Integral;
    }

    /** What the suite's comparisons set side by side. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Comparison {
        @Pattern(ComparedSeries.PATTERN)
        @JsonPropertyDescription("The server series every comparison uses, for every server: processing (pacer's agent inside the server), "
                + "service or residence (the kernel probe at the socket). Unset: service when a server is measured by the probe alone "
                + "(give the others measure: both), else processing.")
        public String series;
    }

    /** CEL: a sweep bound's requests per second (500, 1.5k, 2M), to compare the bounds at admission. */
    static final String CEL_START = "(double(string(self.start).replace('k', '').replace('M', '')) * (string(self.start).endsWith('M')"
            + " ? 1000000.0 : (string(self.start).endsWith('k') ? 1000.0 : 1.0)))";
    static final String CEL_MAX = "(double(string(self.max).replace('k', '').replace('M', '')) * (string(self.max).endsWith('M')"
            + " ? 1000000.0 : (string(self.max).endsWith('k') ? 1000.0 : 1.0)))";

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.start) || !has(self.max) || " + CEL_START + " <= " + CEL_MAX,
            message = "spec.sweep.max must be at least spec.sweep.start: the bounds are inverted", reason = "FieldValueInvalid")
    public static class Sweep {
        @Required
        @SchemaFrom(type = IntOrString.class)
        @Size(max = BenchmarkRunSpec.MAX_RATE_CHARS)
        @ValidationRule(value = BenchmarkRunSpec.CEL_RATE_WHOLE, message = BenchmarkRunSpec.RATE_MESSAGE)
        @ValidationRule(value = BenchmarkRunSpec.CEL_RATE_K, message = BenchmarkRunSpec.RATE_MESSAGE)
        @ValidationRule(value = BenchmarkRunSpec.CEL_RATE_M, message = BenchmarkRunSpec.RATE_MESSAGE)
        @JsonPropertyDescription("The first rate per client, e.g. 1k.")
        public String start;

        @Required
        @SchemaFrom(type = IntOrString.class)
        @Size(max = BenchmarkRunSpec.MAX_RATE_CHARS)
        @ValidationRule(value = BenchmarkRunSpec.CEL_RATE_WHOLE, message = BenchmarkRunSpec.RATE_MESSAGE)
        @ValidationRule(value = BenchmarkRunSpec.CEL_RATE_K, message = BenchmarkRunSpec.RATE_MESSAGE)
        @ValidationRule(value = BenchmarkRunSpec.CEL_RATE_M, message = BenchmarkRunSpec.RATE_MESSAGE)
        @JsonPropertyDescription("The highest rate per client tried, e.g. 100k.")
        public String max;

        @Min(1.1)
        @Max(10)
        @Default("2")
        @JsonPropertyDescription("Each rate is the last times this until one fails, 1.1 to 10.")
        public Double growth = 2.0;

        @Pattern("^[0-9]+(\\.[0-9]+)?%$")
        @Default("5%")
        @JsonPropertyDescription("The bisection stops when the passing and failing rates lie within this of each other, e.g. 5%.")
        public String resolution = "5%";

        @Pattern(BenchmarkRunSpec.DURATION_PATTERN)
        @Default(SpecDefaults.SWEEP_MAX_CLIENT_P99)
        @JsonPropertyDescription("A rate passes when the clients' p99 (from intended send time) stays below this, every client held its rate and no request failed, e.g. 10ms.")
        public String maxClientP99 = SpecDefaults.SWEEP_MAX_CLIENT_P99;

        @Pattern(BenchmarkRunSpec.DURATION_PATTERN)
        @JsonPropertyDescription("Certifies each server's sustained rate: once its search ends, a run this long at the rate found, then the "
                + "lowest rate that failed once more; a confirmation that fails moves the figure down, and the search goes on below it. "
                + "Longer than spec.template.duration and a multiple of its samplePeriod, e.g. 60s. Unset: the rate found is not confirmed.")
        public String confirm;
    }
}
