package dev.pacer.api;

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
 * A schedule: when (cron, time zone), what (a run or a suite template), and the policies of a CronJob. The schema's
 * rules repeat {@link BenchmarkScheduleValidation}'s, which stays the reference (it also parses the cron expression and
 * the time zone, which no schema can).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkScheduleSpec {
    /** Five cron fields (minute hour day-of-month month day-of-week) or a nickname such as @daily. */
    public static final String SCHEDULE_PATTERN = "^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*/,?-]+( +[0-9A-Za-z*/,?-]+){4})$";
    /** An IANA time zone name: UTC, Europe/Paris, America/Argentina/Buenos_Aires. */
    public static final String TIME_ZONE_PATTERN = "^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$";
    /** The schedule's own name is short: a slot's runs are named {@code <schedule>-<yyMMddHHmm>[-<repetition>]}. */
    public static final int MAX_NAME_CHARS = 30;
    public static final int MAX_REPETITIONS = 20;
    public static final int MAX_KEEP = 100;

    @Required
    @Size(max = 100)
    @Pattern(SCHEDULE_PATTERN)
    @JsonPropertyDescription("When, in cron's five fields (minute hour day-of-month month day-of-week) or a nickname: \"0 3 * * *\" "
            + "(03:00 every day), \"*/30 * * * 1-5\", @daily, @hourly.")
    public String schedule;

    @Pattern(TIME_ZONE_PATTERN)
    @Default("UTC")
    @JsonPropertyDescription("The time zone the schedule is read in, an IANA name such as Europe/Paris; UTC by default.")
    public String timeZone = "UTC";

    @Required
    @JsonPropertyDescription("What each slot runs: a BenchmarkRun's spec (run) or a BenchmarkSuite's spec (suite), one of the two.")
    public Template template;

    @Min(1)
    @Max(MAX_REPETITIONS)
    @Default("1")
    @JsonPropertyDescription("Runs (or suites) per slot, one after another, 1 to 20: more points per slot in the history.")
    public Integer repetitions = 1;

    @Default("Forbid")
    @JsonPropertyDescription("A slot that comes while an earlier one is still running: Forbid skips it (the default: runs on the same "
            + "machines must not overlap), Replace deletes the earlier slot's runs and starts, Allow starts it too (its runs wait in the "
            + "operator's queue, PACER_MAX_ACTIVE_RUNS).")
    public ConcurrencyPolicy concurrencyPolicy = ConcurrencyPolicy.Forbid;

    @Min(1)
    @JsonPropertyDescription("A slot not started within this many seconds of its time (the operator was down, the schedule suspended) "
            + "is skipped as missed. Unset: a late slot starts however late; only the latest missed slot does.")
    public Long startingDeadlineSeconds;

    @Default("false")
    @JsonPropertyDescription("true holds new slots (the runs under way go on); false again starts the latest missed slot, within "
            + "startingDeadlineSeconds.")
    public Boolean suspend = false;

    @Min(1)
    @Max(MAX_KEEP)
    @Default("10")
    @JsonPropertyDescription("Finished slots whose runs (or suites) stay in the cluster, 1 to 100; older ones are deleted. The history "
            + "keeps their figures and histograms.")
    public Integer keep = 10;

    @Pattern(BenchmarkRunSpec.DURATION_PATTERN)
    @JsonPropertyDescription("Stale=True when no slot succeeded for this long (since the last successful slot's time, or the schedule's "
            + "creation), e.g. 36h. Unset: when three slots came after the last successful one.")
    public String staleAfter;

    /** What a slot does when an earlier one is still running: CronJob's policies. */
    public enum ConcurrencyPolicy {
        Forbid, Allow, Replace
    }

    /** A run's spec or a suite's spec, one of the two. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.run) != has(self.suite)", message = "takes one of run (a BenchmarkRun's spec) or suite (a "
            + "BenchmarkSuite's spec), not both and not neither", reason = "FieldValueInvalid")
    public static class Template {
        @JsonPropertyDescription("A BenchmarkRun's spec: each slot runs it as a BenchmarkRun named <schedule>-<yyMMddHHmm>[-<repetition>].")
        public BenchmarkRunSpec run;

        @JsonPropertyDescription("A BenchmarkSuite's spec: each slot runs it as a BenchmarkSuite named <schedule>-<yyMMddHHmm>[-<repetition>].")
        public BenchmarkSuiteSpec suite;
    }
}
