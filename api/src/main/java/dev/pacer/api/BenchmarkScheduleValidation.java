package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules a schedule must satisfy, each problem naming its field and the fix: its own fields, and its template's as
 * a run's or a suite's (named under {@code spec.template.run} or {@code spec.template.suite}).
 */
public final class BenchmarkScheduleValidation {
    private BenchmarkScheduleValidation() {
    }

    /** The schedule's slots, when its problems are none. */
    public record Checked(ScheduleTimes times, List<FieldProblem> problems) {
    }

    public static Checked check(BenchmarkSchedule schedule) {
        List<FieldProblem> problems = new ArrayList<>();
        String name = schedule.getMetadata() == null ? null : schedule.getMetadata().getName();
        if (name != null && name.length() > BenchmarkScheduleSpec.MAX_NAME_CHARS) {
            problems.add(new FieldProblem("metadata.name", "'" + name + "' is " + name.length() + " characters, at most "
                    + BenchmarkScheduleSpec.MAX_NAME_CHARS + ": each slot's runs are named <schedule>-<yyMMddHHmm>[-<repetition>]"));
        }
        BenchmarkScheduleSpec spec = schedule.getSpec();
        if (spec == null) {
            problems.add(new FieldProblem("spec", "is required"));
            return new Checked(null, problems);
        }
        ScheduleTimes times = null;
        try {
            times = ScheduleTimes.parse(spec.schedule, spec.timeZone);
        } catch (ScheduleTimes.InvalidScheduleException e) {
            problems.add(e.problem());
        }
        problems.addAll(template(spec.template));
        if (spec.repetitions != null && (spec.repetitions < 1 || spec.repetitions > BenchmarkScheduleSpec.MAX_REPETITIONS)) {
            problems.add(new FieldProblem("spec.repetitions", "must be 1 to " + BenchmarkScheduleSpec.MAX_REPETITIONS + ", was " + spec.repetitions));
        }
        if (spec.keep != null && (spec.keep < 1 || spec.keep > BenchmarkScheduleSpec.MAX_KEEP)) {
            problems.add(new FieldProblem("spec.keep", "must be 1 to " + BenchmarkScheduleSpec.MAX_KEEP + ", was " + spec.keep));
        }
        if (spec.startingDeadlineSeconds != null && spec.startingDeadlineSeconds < 1) {
            problems.add(new FieldProblem("spec.startingDeadlineSeconds", "must be at least 1, was " + spec.startingDeadlineSeconds
                    + ": leave it out for no deadline"));
        }
        if (spec.staleAfter != null) {
            try {
                if (Quantities.parseDuration(spec.staleAfter).isZero()) {
                    problems.add(new FieldProblem("spec.staleAfter", "must be longer than 0, e.g. 36h"));
                }
            } catch (IllegalArgumentException e) {
                problems.add(new FieldProblem("spec.staleAfter", "'" + spec.staleAfter + "' is not a duration: e.g. 36h, 90m"));
            }
        }
        return new Checked(problems.isEmpty() ? times : null, problems);
    }

    private static List<FieldProblem> template(BenchmarkScheduleSpec.Template template) {
        if (template == null || (template.run == null) == (template.suite == null)) {
            return List.of(new FieldProblem("spec.template", "takes one of run (a BenchmarkRun's spec) or suite (a BenchmarkSuite's spec)"));
        }
        return template.run != null ? under("spec.template.run", BenchmarkRunValidation.validate(template.run))
                : under("spec.template.suite", BenchmarkSuiteValidation.validate(template.suite));
    }

    /** A run's or a suite's problem, named where it is in the schedule. */
    public static List<FieldProblem> under(String prefix, List<FieldProblem> problems) {
        return problems.stream().map(p -> new FieldProblem(p.field().startsWith("spec.") ? prefix + p.field().substring(4)
                : p.field().equals("spec") ? prefix : prefix + "." + p.field(), p.message())).toList();
    }
}
