package dev.pacer.api;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

/**
 * A schedule's slots: its cron expression read once, in its time zone (daylight-saving changes as cron has them:
 * the zone's wall clock). Parsed by cron-utils with Unix cron's definition; the nicknames are cron's own shorthands.
 */
public final class ScheduleTimes {
    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final Map<String, String> NICKNAMES = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime times;

    private ScheduleTimes(String expression, ZoneId zone, ExecutionTime times) {
        this.expression = expression;
        this.zone = zone;
        this.times = times;
    }

    /** The slots of {@code spec.schedule} in {@code spec.timeZone}; a problem names the field and the fix. */
    public static ScheduleTimes parse(String schedule, String timeZone) throws InvalidScheduleException {
        if (schedule == null || schedule.isBlank()) {
            throw new InvalidScheduleException(new FieldProblem("spec.schedule", "is required: cron's five fields, e.g. \"0 3 * * *\", or @daily"));
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(timeZone == null ? "UTC" : timeZone);
        } catch (DateTimeException e) {
            throw new InvalidScheduleException(new FieldProblem("spec.timeZone", "'" + timeZone + "' is no time zone: give an IANA name "
                    + "such as UTC or Europe/Paris"));
        }
        String text = schedule.strip();
        String fields = NICKNAMES.getOrDefault(text, text);
        Cron cron;
        try {
            cron = UNIX.parse(fields).validate();
        } catch (IllegalArgumentException e) {
            throw new InvalidScheduleException(new FieldProblem("spec.schedule", "'" + schedule + "' is not a cron schedule ("
                    + e.getMessage() + "): give five fields, minute hour day-of-month month day-of-week, e.g. \"0 3 * * *\", or @daily"));
        }
        ScheduleTimes times = new ScheduleTimes(text, zone, ExecutionTime.forCron(cron));
        if (times.next(Instant.parse("2000-01-01T00:00:00Z")).isEmpty()) {
            throw new InvalidScheduleException(new FieldProblem("spec.schedule", "'" + schedule + "' never comes (e.g. the 31st of "
                    + "February): give a day that exists"));
        }
        return times;
    }

    /** The first slot strictly after {@code after}; empty when the schedule has no later slot. */
    public Optional<Instant> next(Instant after) {
        return times.nextExecution(after.atZone(zone)).map(t -> t.toInstant());
    }

    /** The latest slot at or before {@code at}. */
    public Optional<Instant> latestAtOrBefore(Instant at) {
        Optional<Instant> next = next(at.minusNanos(1));
        if (next.isPresent() && next.get().equals(at)) {
            return next;
        }
        return times.lastExecution(at.atZone(zone)).map(t -> t.toInstant());
    }

    public ZoneId zone() {
        return zone;
    }

    @Override
    public String toString() {
        return expression + " (" + zone + ")";
    }

    /** A schedule or time zone no slot can be made of. */
    public static final class InvalidScheduleException extends Exception {
        private final FieldProblem problem;

        InvalidScheduleException(FieldProblem problem) {
            super(problem.toString());
            this.problem = problem;
        }

        public FieldProblem problem() {
            return problem;
        }
    }
}
