package dev.pacer.engine.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import dev.pacer.api.RunResult;
import dev.pacer.contract.ResourceUse;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class FootprintTest {
    private static final long MIB = 1L << 20;

    /** Periods of 1 s from 100 s: 100–102 before the load (idle), 102–104 warm-up, 104–108 the window, 108–109 after. */
    private static ResourceUse use(boolean peakResets, Integer cpus) {
        List<ResourceUse.Sample> samples = new ArrayList<>();
        long[] cpuMillis = {50, 10, 400, 600, 900, 1_000, 980, 500, 5};
        long[] rssMiB = {90, 100, 150, 160, 170, 180, 175, 165, 160};
        for (int i = 0; i < cpuMillis.length; i++) {
            long start = 100_000 + i * 1_000L;
            samples.add(new ResourceUse.Sample(start, start + 1_000, cpuMillis[i] * 1_000_000, rssMiB[i] * MIB,
                    (rssMiB[i] + 5) * MIB, (long) i, 1L));
        }
        return new ResourceUse(1, 1_000, cpus, peakResets, samples);
    }

    @Test
    void idleIsTheLastPeriodBeforeTheLoadAndTheRestIsTheWindowOnly() {
        Footprint.Outcome outcome = Footprint.of(new Footprint.Input(use(true, 1), 102_000, 104_000, 108_000, 4_000L));
        RunResult.Footprint figures = outcome.figures();
        assertThat(figures.idleRssBytes).isEqualTo(100 * MIB);
        assertThat(figures.peakRssBytes).as("window peak, not the later or earlier ones").isEqualTo(185 * MIB);
        assertThat(figures.peakRssSince).isEqualTo("window");
        assertThat(figures.cpuSeconds).as("periods 104–108: 0.9 + 1.0 + 0.98 + 0.5").isEqualTo(3.38);
        assertThat(figures.cpuCores).isEqualTo(0.845);
        assertThat(figures.cpuUtilization).isEqualTo(0.845);
        assertThat(figures.maxPeriodCpuUtilization).isEqualTo(1.0);
        assertThat(figures.saturatedPeriods).as("1.0 and 0.98").isEqualTo(2);
        assertThat(figures.cpuMicrosPerRequest).isEqualTo(845.0);
        assertThat(figures.gcPauseMillis).isEqualTo(4 + 5 + 6 + 7);
        assertThat(figures.gcCount).isEqualTo(4);
        assertThat(outcome.byPeriod()).containsOnlyKeys(104_000L, 105_000L, 106_000L, 107_000L);
        assertThat(outcome.byPeriod().get(105_000L).cpuUtilization()).isEqualTo(1.0);
    }

    @Test
    void withoutAResettableMarkOrACpusetTheFiguresSaySo() {
        RunResult.Footprint figures = Footprint.of(new Footprint.Input(use(false, null), 102_000, 104_000, 108_000, null)).figures();
        assertThat(figures.peakRssSince).isEqualTo("start");
        assertThat(figures.cpuCores).isEqualTo(0.845);
        assertThat(figures.cpuUtilization).isNull();
        assertThat(figures.saturatedPeriods).isNull();
        assertThat(figures.cpuMicrosPerRequest).isNull();
    }

    @Test
    void samplesThatStartedAfterTheLoadLeaveNoIdleFigure() {
        RunResult.Footprint figures = Footprint.of(new Footprint.Input(use(true, 2), 99_000, 104_000, 108_000, 4_000L)).figures();
        assertThat(figures.idleRssBytes).isNull();
        assertThat(figures.cpuUtilization).isCloseTo(0.4225, Offset.offset(0.001));
        assertThat(figures.saturatedPeriods).isZero();
    }

    /** A process starved by a neighbour uses little CPU, but each time a thread wakes it waits for one. */
    @Test
    void waitingAMillisecondPerSliceIsSaturationEvenWithLittleCpuUsed() {
        List<ResourceUse.Sample> samples = List.of(
                new ResourceUse.Sample(104_000, 105_000, 20_000_000L, 100L << 20, 100L << 20, 0L, 0L, 3_000_000L, 500L, 30_000L),
                new ResourceUse.Sample(105_000, 106_000, 15_000_000L, 100L << 20, 100L << 20, 0L, 0L, 900_000_000L, 80_000L, 300L));
        Footprint.Outcome outcome = Footprint.of(new Footprint.Input(new ResourceUse(1, 1_000, 1, true, samples), 102_000, 104_000, 106_000, 100L));
        assertThat(outcome.figures().maxPeriodCpuUtilization).isEqualTo(0.02);
        assertThat(outcome.figures().saturatedPeriods).as("3 ms over 30,000 slices: 0.1 µs; 900 ms over 300: 3 ms").isEqualTo(1);
        assertThat(outcome.figures().maxWaitPerSliceMicros).isEqualTo(3_000.0);
        assertThat(outcome.figures().maxHiccupMillis).isEqualTo(80.0);
        assertThat(outcome.byPeriod().get(104_000L).waitPerSliceMicros()).isEqualTo(0.1);
        assertThat(outcome.byPeriod().get(105_000L).cpuDemand()).as("(15 + 900) ms wanted of 1 s").isEqualTo(0.915);
    }

    /** Who took the CPU: the process's own compilers and collectors, and the other processes on its CPUs. */
    @Test
    void theSaturatedPeriodsNameWhatElseRanOnTheProcesssCpus() {
        List<ResourceUse.Sample> samples = List.of(
                new ResourceUse.Sample(104_000, 105_000, 200_000_000L, 100L << 20, 100L << 20, 0L, 0L, 3_000_000L, 500L, 30_000L, 40_000_000L, 10_000_000L),
                new ResourceUse.Sample(105_000, 106_000, 150_000_000L, 100L << 20, 100L << 20, 2L, 1L, 900_000_000L, 8_000L, 300L, 100_500_000L, 400_000_000L));
        Footprint.Outcome outcome = Footprint.of(new Footprint.Input(new ResourceUse(1, 1_000, 1, true, samples), 102_000, 104_000, 106_000, 100L));
        assertThat(outcome.whenSaturated()).as("the second period alone").isEqualTo(new Footprint.Competitors(100_500_000L, 2L, 400_000_000L, 1_000));
        assertThat(outcome.inWindow()).isEqualTo(new Footprint.Competitors(140_500_000L, 2L, 410_000_000L, 2_000));
        assertThat(outcome.whenSaturated().describe()).isEqualTo("its JIT compilers ran 100 ms, its collectors paused it 2 ms, other processes ran 400 ms on its CPUs"
                + " (keep other work off the clients' CPUs)");
        assertThat(outcome.figures().jitCpuSeconds).as("summed in nanoseconds, rounded once").isEqualTo(0.141);
        assertThat(outcome.figures().neighbourCpuSeconds).isEqualTo(0.41);
        assertThat(new Footprint.Competitors(900_000_000L, 0L, 0L, 1_000).describe())
                .endsWith("its JIT compilers ran 900 ms, its collectors paused it 0 ms, other processes ran 0 ms on its CPUs"
                        + " (its compilers were still at work: a longer spec.warmup lets them finish first)");
        assertThat(new Footprint.Competitors(117_000_000L, 4L, 60_000_000L, 15_000).describe()).as("under 5 % of the window: named, no advice")
                .isEqualTo("its JIT compilers ran 117 ms, its collectors paused it 4 ms, other processes ran 60 ms on its CPUs");
        assertThat(new Footprint.Competitors(0L, 0L, 300_000_000L, 8_000).describe()).as("an unpinned process: 300 ms of 8 CPUs' second")
                .doesNotContain("keep other work off");
        assertThat(new Footprint.Competitors(null, null, null, 1_000).describe()).as("a process that reported none of them").isEmpty();
    }
}
