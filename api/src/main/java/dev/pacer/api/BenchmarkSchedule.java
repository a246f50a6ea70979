package dev.pacer.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A benchmark run again and again on a cron schedule, as a CronJob runs a Job: at each slot, a BenchmarkRun (or a
 * BenchmarkSuite) made from its template, {@code repetitions} times one after another. Its runs go to the history
 * (docs/history.md), whose confirmed regressions the schedule's {@code Regressed} condition tells; {@code Stale} tells
 * that its slots stopped giving figures.
 */
@Group(BenchmarkRun.GROUP)
@Version(BenchmarkRun.VERSION)
@Kind(BenchmarkSchedule.KIND)
@Plural(BenchmarkSchedule.PLURAL)
@ShortNames(BenchmarkSchedule.SHORT_NAME)
@Categories(BenchmarkRun.CATEGORY)
@AdditionalPrinterColumn(name = "SCHEDULE", jsonPath = ".spec.schedule", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The cron schedule.")
@AdditionalPrinterColumn(name = "SUSPEND", jsonPath = ".spec.suspend", type = AdditionalPrinterColumn.Type.BOOLEAN,
        getDescription = "Whether new slots are held.")
@AdditionalPrinterColumn(name = "ACTIVE", jsonPath = ".status.activeCount", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Slots under way.")
@AdditionalPrinterColumn(name = "LAST", jsonPath = ".status.lastScheduleTime", type = AdditionalPrinterColumn.Type.DATE,
        getDescription = "The last slot started or skipped.")
@AdditionalPrinterColumn(name = "REGRESSED", jsonPath = ".status.conditions[?(@.type==\"Regressed\")].status",
        type = AdditionalPrinterColumn.Type.STRING, getDescription = "True: a confirmed regression in the history of its runs nobody acknowledged.")
@AdditionalPrinterColumn(name = "STALE", jsonPath = ".status.conditions[?(@.type==\"Stale\")].status",
        type = AdditionalPrinterColumn.Type.STRING, getDescription = "True: no slot gave figures for longer than spec.staleAfter.")
@AdditionalPrinterColumn(name = "NEXT", jsonPath = ".status.nextScheduleTime", type = AdditionalPrinterColumn.Type.STRING, priority = 1,
        getDescription = "The next slot, RFC 3339.")
@AdditionalPrinterColumn(name = "AGE", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE,
        getDescription = "Time since the resource was created.")
public class BenchmarkSchedule extends CustomResource<BenchmarkScheduleSpec, BenchmarkScheduleStatus> implements Namespaced {
    public static final String KIND = "BenchmarkSchedule";
    public static final String PLURAL = "benchmarkschedules";
    public static final String SHORT_NAME = "bsched";

    // overridden for their descriptions in the CRD (kubectl explain benchmarkschedule.spec)
    @Override
    @JsonPropertyDescription("When and what: a cron schedule and its time zone, a run or suite template, repetitions per slot, what to do "
            + "when a slot is still running, and how many finished slots to keep. It may change: the next slot takes the change.")
    public BenchmarkScheduleSpec getSpec() {
        return super.getSpec();
    }

    @Override
    @JsonPropertyDescription("What the operator observed: the last and next slot, the slots kept with their runs, and the conditions Ready, "
            + "Regressed and Stale. Written by the operator only.")
    public BenchmarkScheduleStatus getStatus() {
        return super.getStatus();
    }
}
