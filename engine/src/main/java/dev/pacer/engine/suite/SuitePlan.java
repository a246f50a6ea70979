package dev.pacer.engine.suite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunSpec;
import dev.pacer.api.BenchmarkSuite;
import dev.pacer.api.BenchmarkSuiteSpec;
import dev.pacer.api.BenchmarkSuiteValidation;
import dev.pacer.api.ComparedSeries;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.Measure;
import dev.pacer.api.Quantities;
import dev.pacer.api.SpecDefaults;
import dev.pacer.engine.plan.RunPlanner;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/**
 * A suite as a sequence of runs, pure: which run comes next given the runs done, and the BenchmarkRun of each. Both
 * the operator and {@code pacer run} follow it, one run at a time (docs/suites.md).
 * <ul>
 *   <li>Fixed rates: repetition after repetition, in each every rate, at each rate every server in the listed order.
 *       Repetitions interleave, so a drift of the machine touches every server alike.</li>
 *   <li>Sweep: server after server, each through its {@link SweepSearch}; with {@code sweep.confirm}, the rate found is
 *       then run again for that long, and the lowest rate that failed once more (each a second repetition). A
 *       confirmation that fails is a failed trial: the sustained rate moves below it, and the search goes on there
 *       with runs of the confirmation's length, which the short ones were shown to overstate, until a rate holds at
 *       that length.</li>
 * </ul>
 */
public record SuitePlan(String suiteName, List<BenchmarkSuiteSpec.SuiteServer> servers, List<Long> rates,
                        Optional<SweepSearch> sweep, int repetitions, ComparedSeries series, BenchmarkSuite suite) {
    /** Labels on a suite's runs. */
    public static final String LABEL_SUITE = "pacer.dev/suite";
    public static final String LABEL_SUITE_SERVER = "pacer.dev/suite-server";
    /** A run's name stays short enough for its Service and pods: Kubernetes names of 63 characters at most. */
    static final int MAX_RUN_NAME = 52;
    private static final ObjectMapper COPY = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * One run of the suite.
     *
     * @param duration the run's measured duration when it is not the template's (a sweep's confirmation), else null
     */
    public record Step(String runName, String server, int serverIndex, long ratePerClient, int repetition, String duration) {
        public Step(String runName, String server, int serverIndex, long ratePerClient, int repetition) {
            this(runName, server, serverIndex, ratePerClient, repetition, null);
        }
    }

    /** A run done: its step and what it gave. */
    public record Done(Step step, SuiteOutcome outcome) {
    }

    public static SuitePlan of(BenchmarkSuite suite) {
        List<FieldProblem> problems = BenchmarkSuiteValidation.validate(suite.getSpec());
        if (!problems.isEmpty()) {
            throw new RunPlanner.InvalidPlanException(problems);
        }
        BenchmarkSuiteSpec spec = suite.getSpec();
        List<Long> rates = new ArrayList<>();
        Optional<SweepSearch> sweep = Optional.empty();
        if (spec.sweep != null) {
            BenchmarkSuiteSpec.Sweep s = spec.sweep;
            sweep = Optional.of(new SweepSearch(Quantities.parseRatePerSecond(s.start), Quantities.parseRatePerSecond(s.max),
                    s.growth == null ? 2.0 : s.growth, Quantities.parseRatio(s.resolution == null ? "5%" : s.resolution),
                    Quantities.parseDuration(s.maxClientP99 == null ? SpecDefaults.SWEEP_MAX_CLIENT_P99 : s.maxClientP99)));
        } else if (spec.rates != null && !spec.rates.isEmpty()) {
            spec.rates.forEach(r -> rates.add(Quantities.parseRatePerSecond(text(r))));
        } else {
            rates.add(Quantities.parseRatePerSecond(spec.template.clients.rate));
        }
        int repetitions = sweep.isPresent() || spec.repetitions == null ? 1 : spec.repetitions;
        ComparedSeries series = ComparedSeries.of(spec.comparison == null ? null : spec.comparison.series,
                spec.servers.stream().map(s -> Measure.of(s.measure)).toList());
        return new SuitePlan(suite.getMetadata().getName(), List.copyOf(spec.servers), List.copyOf(rates), sweep, repetitions, series, suite);
    }

    static String text(IntOrString value) {
        return value.getIntVal() != null ? value.getIntVal().toString() : value.getStrVal();
    }

    /** How many runs a fixed-rate suite has; empty for a sweep, whose length depends on its results. */
    public OptionalLong plannedRuns() {
        return sweep.isPresent() ? OptionalLong.empty() : OptionalLong.of((long) servers.size() * rates.size() * repetitions);
    }

    /** The next run after these, or empty when the suite is complete. */
    public Optional<Step> next(List<Done> done) {
        if (sweep.isEmpty()) {
            int index = done.size();
            if (index >= plannedRuns().getAsLong()) {
                return Optional.empty();
            }
            int perRepetition = servers.size() * rates.size();
            int repetition = index / perRepetition + 1;
            int rate = index % perRepetition / servers.size();
            int server = index % servers.size();
            return Optional.of(step(server, rates.get(rate), repetition));
        }
        String confirm = suite.getSpec().sweep == null ? null : suite.getSpec().sweep.confirm;
        for (int server = 0; server < servers.size(); server++) {
            String name = servers.get(server).name;
            List<SweepSearch.Trial> trials = trials(done, name);
            // once a confirmation failed, the short runs are known to overstate this server: the search goes on at length
            boolean atLength = confirm != null && done.stream().anyMatch(d -> d.step().server().equals(name)
                    && d.step().duration() != null && !judge(d.outcome()).passed());
            OptionalLong rate = sweep.get().next(trials);
            if (rate.isPresent()) {
                return Optional.of(step(server, rate.getAsLong(), 1, atLength ? confirm : null));
            }
            Optional<Step> confirming = confirm == null ? Optional.empty() : confirmation(server, trials, done, confirm, atLength);
            if (confirming.isPresent()) {
                return confirming;
            }
        }
        return Optional.empty();
    }

    /**
     * The confirmation a server's finished search still needs: a run at length of its sustained rate, unless one passed
     * there; then, when no confirmation failed, the lowest rate that failed once more.
     */
    private Optional<Step> confirmation(int server, List<SweepSearch.Trial> trials, List<Done> done, String confirm, boolean atLength) {
        OptionalLong sustained = sweep.orElseThrow().sustained(trials);
        if (sustained.isEmpty()) {
            return Optional.empty();   // nothing passed: nothing to certify
        }
        String name = servers.get(server).name;
        long rate = sustained.getAsLong();
        boolean held = done.stream().anyMatch(d -> d.step().server().equals(name) && d.step().ratePerClient() == rate
                && d.step().duration() != null && judge(d.outcome()).passed());
        if (!held) {
            return Optional.of(step(server, rate, (int) tries(done, name, rate) + 1, confirm));
        }
        OptionalLong lowestFailure = trials.stream().filter(t -> !t.passed()).mapToLong(SweepSearch.Trial::ratePerClient).min();
        if (!atLength && lowestFailure.isPresent() && tries(done, name, lowestFailure.getAsLong()) < 2) {
            return Optional.of(step(server, lowestFailure.getAsLong(), 2, null));
        }
        return Optional.empty();
    }

    private static long tries(List<Done> done, String server, long rate) {
        return done.stream().filter(d -> d.step().server().equals(server) && d.step().ratePerClient() == rate).count();
    }

    /** A server's sweep so far. */
    public List<SweepSearch.Trial> trials(List<Done> done, String server) {
        return done.stream().filter(d -> d.step().server().equals(server)).map(d -> {
            SuiteOutcome.Judgement judgement = judge(d.outcome());
            return new SweepSearch.Trial(d.step().ratePerClient(), judgement.passed(), judgement.notTheServers());
        }).toList();
    }

    /** Where a sweep's run's clients' p99 went, over the window and in each period over the sweep's limit. */
    public Optional<String> p99Parts(SuiteOutcome outcome) {
        return outcome.p99Parts().map(parts -> parts.shares(sweep.orElseThrow().maxClientP99()));
    }

    /** A sweep's judgement of a run: by its client p99 limit and the template's rate tolerance. */
    public SuiteOutcome.Judgement judge(SuiteOutcome outcome) {
        return outcome.judge(sweep.orElseThrow().maxClientP99(), plannedRateTolerance());
    }

    private double plannedRateTolerance() {
        BenchmarkRunSpec.Criteria criteria = suite.getSpec().template.criteria;
        return Quantities.parseRatio(criteria == null || criteria.rateTolerance == null ? SpecDefaults.RATE_TOLERANCE : criteria.rateTolerance);
    }

    private Step step(int server, long rate, int repetition) {
        return step(server, rate, repetition, null);
    }

    private Step step(int server, long rate, int repetition, String duration) {
        String serverName = servers.get(server).name;
        String tail = "-" + serverName + "-" + Quantities.formatRate(rate).toLowerCase(Locale.ROOT).replace('.', '-') + "-" + repetition;
        String head = suiteName.length() + tail.length() <= MAX_RUN_NAME ? suiteName
                : suiteName.substring(0, Math.max(1, MAX_RUN_NAME - tail.length())).replaceAll("-+$", "");
        return new Step(head + tail, serverName, server, rate, repetition, duration);
    }

    /** The BenchmarkRun of a step: the template, the server, the rate; labelled with the suite and the server. */
    public BenchmarkRun run(Step step) {
        BenchmarkRunSpec spec = BenchmarkSuiteValidation.runSpec(suite.getSpec().template, servers.get(step.serverIndex()));
        // the run is a resource of its own (on a cluster, reconciled alone): its spec carries the rate in the schema's
        // form, and its planner parses it once, as for any run; Quantities' round trip is tested over every form
        spec.clients.rate = Quantities.formatRate(step.ratePerClient());
        if (step.duration() != null) {
            spec.duration = step.duration();
        }
        if (spec.cleanup != null) {
            spec.cleanup.ttlSecondsAfterFinished = null;   // the suite reads its runs to the end; they go with it
        }
        BenchmarkRun run = new BenchmarkRun();
        LinkedHashMap<String, String> labels = new LinkedHashMap<>();
        if (suite.getMetadata().getLabels() != null) {
            labels.putAll(suite.getMetadata().getLabels());   // the suite's (its schedule's, the history's opt-in) go to its runs
        }
        labels.put(LABEL_SUITE, suiteName);
        labels.put(LABEL_SUITE_SERVER, step.server());
        run.setMetadata(new ObjectMetaBuilder().withName(step.runName()).withNamespace(suite.getMetadata().getNamespace())
                .withLabels(labels).build());
        run.setSpec(spec);
        return run;
    }
}
