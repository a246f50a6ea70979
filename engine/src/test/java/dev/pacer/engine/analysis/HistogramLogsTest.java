package dev.pacer.engine.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;

class HistogramLogsTest {
    @Test
    void periodsAreReadBackWhole_inAFractionOfAPlainHistogramsMemory() {
        long highest = TimeUnit.SECONDS.toNanos(60);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        HistogramLogWriter writer = new HistogramLogWriter(new PrintStream(bytes, true, StandardCharsets.US_ASCII));
        writer.setBaseTime(1_795_000_000_000L);
        writer.outputLogFormatVersion();
        writer.outputBaseTime(1_795_000_000_000L);
        writer.outputLegend();
        Histogram written = new Histogram(1, highest, 3);
        for (int period = 0; period < 3; period++) {
            written.reset();
            for (int i = 0; i < 10_000; i++) {   // 40 µs to 1 ms, and a 25 ms outlier
                written.recordValue(40_000 + (i * 7_919L) % 960_000);
            }
            written.recordValue(25_000_000);
            written.setStartTimeStamp(1_795_000_000_000L + period * 1_000L);
            written.setEndTimeStamp(1_795_000_001_000L + period * 1_000L);
            writer.outputIntervalHistogram(written);
        }

        List<PeriodHistogram> read = HistogramLogs.parse(bytes.toString(StandardCharsets.US_ASCII), 1_000);
        assertThat(read).hasSize(3);
        Histogram last = read.get(2).histogram();
        assertThat(last.getTotalCount()).isEqualTo(written.getTotalCount());
        assertThat(last.getValueAtPercentile(99)).isEqualTo(written.getValueAtPercentile(99));
        assertThat(last.getMaxValue()).isEqualTo(written.getMaxValue());
        assertThat(read.get(2).startEpochMs()).isEqualTo(1_795_000_002_000L);
        assertThat(last.getEstimatedFootprintInBytes()).as("vs %d bytes plain", written.getEstimatedFootprintInBytes())
                .isLessThan(written.getEstimatedFootprintInBytes() / 4);
    }
}
