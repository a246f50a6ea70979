package dev.pacer.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.Condition;

/** Where a schedule is: its slots and their runs, and what its history says. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BenchmarkScheduleStatus {
    @JsonPropertyDescription("The last slot started or skipped, RFC 3339.")
    public String lastScheduleTime;
    @JsonPropertyDescription("The next slot, RFC 3339; absent while suspended.")
    public String nextScheduleTime;
    @JsonPropertyDescription("The time of the last slot whose runs all succeeded with figures, RFC 3339.")
    public String lastSuccessfulTime;
    @JsonPropertyDescription("Slots under way.")
    public Integer activeCount;
    @JsonPropertyDescription("The runs (or suites) under way or waiting to start.")
    public List<String> active = new ArrayList<>();
    @JsonPropertyDescription("The slots kept, oldest first: those under way and the last spec.keep finished or skipped.")
    public List<Slot> slots = new ArrayList<>();
    @JsonPropertyDescription("Ready (the schedule is valid and armed; Suspended, InvalidSpec), Regressed (a confirmed, unacknowledged "
            + "change for the worse in the history of its runs; HistoryOff when the operator keeps no history), Stale (no slot gave figures "
            + "within spec.staleAfter).")
    @SchemaFrom(type = ConditionSchema[].class)
    public List<Condition> conditions = new ArrayList<>();
    @JsonPropertyDescription("The generation of the spec this status is of.")
    public Long observedGeneration;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Slot {
        @JsonPropertyDescription("The slot's time, RFC 3339.")
        public String time;
        @JsonPropertyDescription("Running, Succeeded (every run gave figures), Failed, Skipped (an earlier slot was running: Forbid), Missed "
                + "(past startingDeadlineSeconds) or Replaced.")
        public String state;
        @JsonPropertyDescription("The slot's runs (or suites), in order.")
        public List<String> runs = new ArrayList<>();
        @JsonPropertyDescription("Why it failed, was skipped or missed.")
        public String message;
    }
}
