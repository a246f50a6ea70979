package dev.pacer.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * Every rule of a BenchmarkSuite, with the field and the fix. Each server is checked as the run it makes (the template
 * with that server), so a suite is refused for anything one of its runs would be refused for, named as the suite's
 * field ({@code spec.template.clients.count}, {@code spec.servers[1].image}).
 */
public final class BenchmarkSuiteValidation {
    private static final ObjectMapper COPY = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private BenchmarkSuiteValidation() {
    }

    public static List<FieldProblem> validate(BenchmarkSuiteSpec spec) {
        List<FieldProblem> problems = new ArrayList<>();
        if (spec == null) {
            problems.add(new FieldProblem("spec", "is required: at least spec.template and spec.servers"));
            return problems;
        }
        if (spec.template == null) {
            problems.add(new FieldProblem("spec.template", "is required: the runs' spec without its server (clients, duration, …)"));
        }
        if (spec.servers == null || spec.servers.isEmpty()) {
            problems.add(new FieldProblem("spec.servers", "must list at least one server, e.g. [{name: jetty12, image: pacer/server-jetty12:0.1.0}]"));
        } else if (spec.servers.size() > BenchmarkSuiteSpec.MAX_SERVERS) {
            problems.add(new FieldProblem("spec.servers", "must list at most " + BenchmarkSuiteSpec.MAX_SERVERS + " servers, was " + spec.servers.size()));
        } else {
            Set<String> names = new HashSet<>();
            for (int i = 0; i < spec.servers.size(); i++) {
                BenchmarkSuiteSpec.SuiteServer server = spec.servers.get(i);
                String field = "spec.servers[" + i + "]";
                if (server == null) {
                    problems.add(new FieldProblem(field, "is empty"));
                    continue;
                }
                if (server.name == null || !server.name.matches(BenchmarkSuiteSpec.NAME_PATTERN)) {
                    problems.add(new FieldProblem(field + ".name", "must be lowercase letters, digits and '-', at most 24, e.g. jetty12-core; was '" + server.name + "'"));
                } else if (!names.add(server.name)) {
                    problems.add(new FieldProblem(field + ".name", "'" + server.name + "' names two servers: names must differ"));
                }
                if (spec.template != null) {
                    for (FieldProblem problem : asRun(spec.template, server)) {
                        FieldProblem renamed = rename(problem, field, server);
                        if (!problems.contains(renamed)) {   // the template's once (a rule of the template with one server may fail only there)
                            problems.add(renamed);
                        }
                    }
                }
            }
        }
        comparison(problems, spec);
        if (spec.rates != null && spec.sweep != null) {
            problems.add(new FieldProblem("spec.rates", "and spec.sweep exclude each other: give fixed rates or a sweep"));
        }
        if (spec.rates != null) {
            if (spec.rates.isEmpty() || spec.rates.size() > BenchmarkSuiteSpec.MAX_RATES) {
                problems.add(new FieldProblem("spec.rates", "must list 1 to " + BenchmarkSuiteSpec.MAX_RATES + " rates, or be left out"));
            }
            for (int i = 0; i < spec.rates.size(); i++) {
                IntOrString rate = spec.rates.get(i);
                String text = rate == null ? null : rate.getIntVal() != null ? rate.getIntVal().toString() : rate.getStrVal();
                rate(problems, "spec.rates[" + i + "]", text);
            }
        }
        if (spec.sweep != null) {
            sweep(problems, spec.sweep);
            confirm(problems, spec.sweep.confirm, spec.template);
        }
        if (spec.repetitions != null && (spec.repetitions < 1 || spec.repetitions > BenchmarkSuiteSpec.MAX_REPETITIONS)) {
            problems.add(new FieldProblem("spec.repetitions", "must be in [1, " + BenchmarkSuiteSpec.MAX_REPETITIONS + "], was " + spec.repetitions));
        }
        return problems;
    }

    /** Every server has the series the suite compares: two instruments are never set side by side. */
    private static void comparison(List<FieldProblem> problems, BenchmarkSuiteSpec spec) {
        if (spec.servers == null || spec.servers.stream().anyMatch(s -> s == null || Measure.parse(s.measure).isEmpty())) {
            return;   // each server's own problem is named already
        }
        String named = spec.comparison == null ? null : spec.comparison.series;
        List<Measure> measures = spec.servers.stream().map(s -> Measure.of(s.measure)).toList();
        Optional<ComparedSeries> series = named == null ? Optional.of(ComparedSeries.unnamed(measures)) : ComparedSeries.parse(named);
        if (series.isEmpty()) {
            problems.add(new FieldProblem("spec.comparison.series", "must be processing, service or residence, was '" + named + "'"));
            return;
        }
        List<String> without = new ArrayList<>();
        for (int i = 0; i < spec.servers.size(); i++) {
            Measure measure = measures.get(i);
            // unnamed, a server not measured at all is left out of the comparisons; named, every server must have the series
            if (!series.get().measuredWith(measure) && (named != null || measure != Measure.NONE)) {
                without.add(spec.servers.get(i).name + " (measure: " + measure.spec() + ")");
            }
        }
        if (without.isEmpty()) {
            return;
        }
        if (named == null) {
            problems.add(new FieldProblem("spec.servers", "compare the probe's service, since a server is measured by the probe alone, "
                    + "and " + String.join(", ", without) + " have none: give them measure: both, or name the series in "
                    + "spec.comparison.series"));
        } else {
            problems.add(new FieldProblem("spec.comparison.series", named + " is " + (series.get() == ComparedSeries.PROCESSING
                    ? "the agent's series" : "a series of the kernel probe") + ", and " + String.join(", ", without)
                    + " have none: give every server " + series.get().needs() + ", or compare another series"));
        }
    }

    private static void sweep(List<FieldProblem> problems, BenchmarkSuiteSpec.Sweep sweep) {
        Long start = rate(problems, "spec.sweep.start", sweep.start);
        Long max = rate(problems, "spec.sweep.max", sweep.max);
        if (start != null && max != null && start > max) {
            problems.add(new FieldProblem("spec.sweep.max", "must be at least spec.sweep.start (" + sweep.start + "), was " + sweep.max
                    + ": the bounds are inverted"));
        }
        if (sweep.growth != null && (sweep.growth < 1.1 || sweep.growth > 10)) {
            problems.add(new FieldProblem("spec.sweep.growth", "must be in [1.1, 10], e.g. 2, was " + sweep.growth));
        }
        if (sweep.resolution != null) {
            try {
                double ratio = Quantities.parseRatio(sweep.resolution);
                if (ratio <= 0 || ratio >= 1) {
                    problems.add(new FieldProblem("spec.sweep.resolution", "must lie between 0 % and 100 %, e.g. 5%, was " + sweep.resolution));
                }
            } catch (IllegalArgumentException e) {
                problems.add(new FieldProblem("spec.sweep.resolution", e.getMessage()));
            }
        }
        if (sweep.maxClientP99 != null) {
            try {
                Quantities.parseDuration(sweep.maxClientP99);
            } catch (IllegalArgumentException e) {
                problems.add(new FieldProblem("spec.sweep.maxClientP99", e.getMessage()));
            }
        }
    }

    /** The confirming run is the template's run, longer: the window must hold whole sample periods, more than the template's. */
    private static void confirm(List<FieldProblem> problems, String confirm, RunTemplate template) {
        if (confirm == null) {
            return;
        }
        try {
            Duration length = Quantities.parseDuration(confirm);
            Duration period = Quantities.parseDuration(template == null || template.samplePeriod == null ? SpecDefaults.SAMPLE_PERIOD : template.samplePeriod);
            Duration duration = template == null || template.duration == null ? null : Quantities.parseDuration(template.duration);
            if (duration != null && length.compareTo(duration) <= 0) {
                problems.add(new FieldProblem("spec.sweep.confirm", "must be longer than spec.template.duration (" + template.duration
                        + "): the confirmation is a longer run at the rate found, was " + confirm));
            } else if (period.isPositive() && length.toNanos() % period.toNanos() != 0) {
                problems.add(new FieldProblem("spec.sweep.confirm", "must be a multiple of spec.template.samplePeriod (" + period.toMillis()
                        + " ms), was " + confirm));
            }
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem("spec.sweep.confirm", e.getMessage()));
        }
    }

    private static Long rate(List<FieldProblem> problems, String field, String text) {
        if (text == null) {
            problems.add(new FieldProblem(field, "is required: requests per second per client, e.g. 1k"));
            return null;
        }
        try {
            long rate = Quantities.parseRatePerSecond(text);
            if (rate < 1) {
                problems.add(new FieldProblem(field, "must be at least 1 request per second, was '" + text + "'"));
            }
            return rate;
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem(field, e.getMessage()));
            return null;
        }
    }

    /** The problems of the run this server makes with the template. */
    private static List<FieldProblem> asRun(RunTemplate template, BenchmarkSuiteSpec.SuiteServer server) {
        return BenchmarkRunValidation.validate(runSpec(template, server));
    }

    /**
     * The spec of a suite's run of this server: the template, the server, and the server's own expected P99 integral
     * over the template's. The suite's planner and its validation both build runs so.
     */
    public static BenchmarkRunSpec runSpec(RunTemplate template, BenchmarkSuiteSpec.SuiteServer server) {
        BenchmarkRunSpec run = COPY.convertValue(template, BenchmarkRunSpec.class);
        run.server = COPY.convertValue(server, BenchmarkRunSpec.Server.class);
        if (server.expectP99Integral != null) {
            if (run.criteria == null) {
                run.criteria = new BenchmarkRunSpec.Criteria();
            }
            run.criteria.expectP99Integral = COPY.convertValue(server.expectP99Integral, BenchmarkRunSpec.ExpectedIntegral.class);
        }
        return run;
    }

    /** spec.server.X → spec.servers[i].X; a server's own expected integral → spec.servers[i].expectP99Integral.X; spec.X → spec.template.X. */
    private static FieldProblem rename(FieldProblem problem, String serverField, BenchmarkSuiteSpec.SuiteServer server) {
        String field = problem.field();
        if (server.expectP99Integral != null && field.startsWith("spec.criteria.expectP99Integral")) {
            return new FieldProblem(serverField + field.substring("spec.criteria".length()), problem.message());
        }
        if (field.equals("spec.server") || field.startsWith("spec.server.")) {
            return new FieldProblem(serverField + field.substring("spec.server".length()), problem.message());
        }
        return new FieldProblem(field.replaceFirst("^spec\\.", "spec.template."), problem.message());
    }
}
