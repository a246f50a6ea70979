package dev.pacer.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.pacer.contract.CpuList;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;

class PeriodSamplerTest {
    @Test
    void boundariesAreWallClockMultiples() {
        assertThat(PeriodBoundaries.nextBoundaryEpochMillis(1_234, 1000)).isEqualTo(2_000);
        assertThat(PeriodBoundaries.nextBoundaryEpochMillis(2_000, 1000)).isEqualTo(3_000);
        assertThat(PeriodBoundaries.boundaryAtOrBeforeEpochMillis(2_999, 1000)).isEqualTo(2_000);
        assertThat(PeriodBoundaries.nextBoundaryEpochMillis(1_234, 250)).isEqualTo(1_250);
    }

    @Test
    void closedPeriodsAreAlignedAndLoggedInTheStandardFormat() {
        try (PeriodSampler sampler = PeriodSampler.builder("test").period(Duration.ofMillis(200)).start()) {
            for (int i = 1; i <= 100; i++) {
                sampler.recordNanos(i * 1_000L);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> sampler.closedCount() == 100);
            sampler.recordNanos(-1);
            sampler.recordNanos(Long.MAX_VALUE);
            await().atMost(Duration.ofSeconds(5)).until(() -> sampler.closedCount() == 102);
            assertThat(sampler.clampedValues()).isEqualTo(2);
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            sampler.writeLog(log);
            String text = log.toString();
            assertThat(text).startsWith("#pacer test histograms").contains("#[Histogram log format version 1.3]")
                    .contains("#[StartTime: ").contains("#[BaseTime: ").contains("\"StartTimestamp\",\"Interval_Length\"");
            HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(log.toByteArray()));
            List<Histogram> periods = new ArrayList<>();
            EncodableHistogram next;
            while ((next = reader.nextIntervalHistogram()) != null) {
                periods.add((Histogram) next);
            }
            assertThat(periods.stream().mapToLong(Histogram::getTotalCount).sum()).isEqualTo(102);
            // every period after the first (partial) one starts on a multiple of the period
            for (Histogram period : periods.subList(1, periods.size())) {
                long start = Math.round(period.getStartTimeStamp() / 200.0) * 200;
                assertThat(Math.abs(period.getStartTimeStamp() - start)).isLessThanOrEqualTo(1);
            }
            Histogram all = new Histogram(3);
            all.setAutoResize(true);
            periods.forEach(all::add);
            assertThat(all.getMaxValue()).isEqualTo(all.highestEquivalentValue(sampler.highestTrackableNanos()));
            assertThat(all.getMinValue()).isZero();
        }
    }

    @Test
    void retentionIsBoundedAndDropsTheOldest() {
        try (PeriodSampler sampler = PeriodSampler.builder("bounded").period(Duration.ofMillis(100)).maxRetainedPeriods(3).start()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> sampler.droppedPeriods() >= 2);
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            sampler.writeLog(log);
            long lines = log.toString().lines().filter(l -> !l.startsWith("#") && !l.startsWith("\"")).count();
            assertThat(lines).isEqualTo(3);
            assertThat(log.toString()).contains("periods dropped");
        }
    }

    @Test
    void cpuListsAreCounted() {
        assertThat(CpuList.count("0-3,6")).isEqualTo(5);
        assertThat(CpuList.count("1")).isEqualTo(1);
    }

    @Test
    void workloadIsParsedAndCapped() {
        Workload w = Workload.parse("sleepMicros=2000&bytes=10&other=1");
        assertThat(w.sleepMicros()).isEqualTo(2000);
        assertThat(w.body()).hasSize(10);
        assertThat(Workload.parse("sleepMicros=999999999999").sleepMicros()).isEqualTo(Workload.MAX_MICROS);
        assertThat(Workload.parse(null)).isEqualTo(Workload.NONE);
        Workload slower = Workload.parse("sleepMicros=2000", Workload.NONE);
        assertThat(slower.sleepMicros()).as("parsed with the caps in place").isEqualTo(2000);
        assertThat(Workload.parse("", slower)).as("a request asking for no work does the image's default").isEqualTo(slower);
        assertThat(Workload.parse("bytes=3", slower).sleepMicros()).as("one asking for some does that alone").isZero();
        assertThat(Workload.NONE.body()).isEqualTo(Workload.DEFAULT_BODY);
        assertThat(new String(Workload.NONE.body("/"), StandardCharsets.US_ASCII)).as("the shoot-out's payload").isEqualTo("ok");
        assertThat(Workload.NONE.body("/plaintext")).isEqualTo(Workload.DEFAULT_BODY);
        assertThat(Workload.parse("bytes=3").body("/")).as("bytes= wins on every path").hasSize(3);
    }
}
