package dev.pacer.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.Deflater;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;

/** The kept Deflater's encoding is HdrHistogram's own, byte for byte, period after period, in the log line too. */
class DeflaterKeptEncodingTest {
    private static final long HIGHEST_NANOS = PeriodSampler.DEFAULT_HIGHEST_TRACKABLE_NANOS;

    private static byte[] encoded(EncodableHistogram histogram, int level) {
        ByteBuffer target = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(target, level);
        return Arrays.copyOf(target.array(), length);
    }

    private static String line(EncodableHistogram histogram) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HistogramLogWriter writer = new HistogramLogWriter(new PrintStream(out, true, StandardCharsets.US_ASCII));
        writer.setBaseTime(1_000);
        writer.outputIntervalHistogram(histogram);
        return out.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void everyPeriodsBytesAndLogLineAreTheLibrarysOwn() {
        Recorder recorder = new Recorder(1, HIGHEST_NANOS, PeriodSampler.SIGNIFICANT_DIGITS);
        DeflaterKeptEncoding encoding = new DeflaterKeptEncoding(new Histogram(1, HIGHEST_NANOS, PeriodSampler.SIGNIFICANT_DIGITS));
        Random random = new Random(3);
        Histogram interval = null;
        for (int period = 0; period < 30; period++) {
            int values = period % 5 == 0 ? 0 : random.nextInt(50_000);   // some periods empty
            for (int i = 0; i < values; i++) {
                recorder.recordValue((long) Math.exp(random.nextDouble() * Math.log(HIGHEST_NANOS)));
            }
            interval = recorder.getIntervalHistogram(interval);
            interval.setStartTimeStamp(1_000 + 1_000L * period);
            interval.setEndTimeStamp(2_000 + 1_000L * period);
            for (int level : new int[] {Deflater.DEFAULT_COMPRESSION, Deflater.BEST_COMPRESSION}) {
                assertThat(encoded(encoding.of(interval), level)).as("period %d, level %d", period, level).isEqualTo(encoded(interval, level));
            }
            assertThat(line(encoding.of(interval))).isEqualTo(line(interval)).startsWith((period + ".000,1.000,"));
        }
    }
}
