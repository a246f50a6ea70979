package dev.pacer.agent;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * Records latencies in nanoseconds and closes one interval histogram per sample period, aligned to wall-clock
 * multiples of the period ({@link PeriodBoundaries}), so that every process of a run closes the same periods.
 *
 * <p>The loop of the closing thread is HdrHistogram's canonical one:
 * <pre>{@code
 * sleep until the next boundary;
 * interval = recorder.getIntervalHistogram(interval);     // swap, wait-free for the writers
 * interval.setStartTimeStamp(previousBoundary); interval.setEndTimeStamp(boundary);
 * retained.add(encoded log line of interval); cumulative.add(interval); listeners.accept(summary);
 * }</pre>
 *
 * <p>The first period starts when the sampler starts and the last one ends when it closes: both are partial, and
 * their start/end time stamps say so (the analysis drops periods shorter than the sample period).
 *
 * <p>Hot path: {@link #recordNanos(long)} is HdrHistogram's wait-free {@link Recorder#recordValue(long)} plus two
 * comparisons; values outside {@code [0, highestTrackableNanos]} are clamped and counted, never thrown.
 *
 * <p>Memory bound: each closed period is retained as its compressed log line (typically 0.1–2 KiB at 3 significant
 * digits), at most {@code maxRetainedPeriods} of them (default 21,600: six hours at 1 s), the oldest dropped first
 * and counted in {@link #droppedPeriods()}. Two full histograms (interval and cumulative, about 200 KiB each with the
 * default range) exist besides.
 */
public final class PeriodSampler implements Closeable {
    /** HdrHistogram's default ratio: the log's max column is in milliseconds when values are nanoseconds. */
    public static final double MAX_VALUE_UNIT_RATIO_NANOS_TO_MILLIS = 1_000_000.0;
    public static final int SIGNIFICANT_DIGITS = 3;
    public static final long DEFAULT_HIGHEST_TRACKABLE_NANOS = TimeUnit.SECONDS.toNanos(60);
    public static final int DEFAULT_MAX_RETAINED_PERIODS = 21_600;

    private final String name;
    private final long periodMillis;
    private final long highestTrackableNanos;
    private final int maxRetainedPeriods;
    private final Clock clock;
    private final Recorder recorder;
    private final LongAdder clampedValues = new LongAdder();
    private final List<Consumer<PeriodSummary>> periodListeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    // Guarded by lock.
    private final ArrayDeque<String> retainedLogLines = new ArrayDeque<>();
    private final Histogram cumulative;
    private Histogram interval;
    private long droppedPeriods;
    private long lastBoundaryEpochMillis;
    private PeriodSummary lastPeriod = PeriodSummary.EMPTY;
    private final long firstPeriodStartEpochMillis;
    private final ByteArrayOutputStream lineBuffer = new ByteArrayOutputStream(4096);
    private final HistogramLogWriter lineWriter;
    private final DeflaterKeptEncoding lineEncoding;
    private final Thread closer;
    private volatile boolean closed;

    private PeriodSampler(Builder builder) {
        this.name = builder.name;
        this.periodMillis = builder.period.toMillis();
        if (periodMillis <= 0) {
            throw new IllegalArgumentException("sample period must be at least 1 ms, was " + builder.period);
        }
        this.highestTrackableNanos = builder.highestTrackableNanos;
        this.maxRetainedPeriods = builder.maxRetainedPeriods;
        this.clock = builder.clock;
        this.recorder = new Recorder(1, highestTrackableNanos, SIGNIFICANT_DIGITS);
        this.cumulative = new Histogram(1, highestTrackableNanos, SIGNIFICANT_DIGITS);
        this.firstPeriodStartEpochMillis = clock.millis();
        this.lastBoundaryEpochMillis = firstPeriodStartEpochMillis;
        this.lineWriter = new HistogramLogWriter(new PrintStream(lineBuffer, false, StandardCharsets.US_ASCII));
        this.lineWriter.setBaseTime(firstPeriodStartEpochMillis);
        this.lineEncoding = new DeflaterKeptEncoding(cumulative);
        this.closer = Thread.ofPlatform().daemon().name("pacer-sampler-" + name).unstarted(this::closePeriods);
        this.closer.start();
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Records one value; wait-free and allocation-free. */
    public void recordNanos(long valueNanos) {
        long value = valueNanos;
        if (value > highestTrackableNanos) {
            clampedValues.increment();
            value = highestTrackableNanos;
        } else if (value < 0) {
            clampedValues.increment();
            value = 0;
        }
        recorder.recordValue(value);
    }

    public String name() {
        return name;
    }

    public Duration period() {
        return Duration.ofMillis(periodMillis);
    }

    public long clampedValues() {
        return clampedValues.sum();
    }

    public long highestTrackableNanos() {
        return highestTrackableNanos;
    }

    public long droppedPeriods() {
        synchronized (lock) {
            return droppedPeriods;
        }
    }

    public PeriodSummary lastPeriod() {
        synchronized (lock) {
            return lastPeriod;
        }
    }

    /** Values recorded in closed periods. */
    public long closedCount() {
        synchronized (lock) {
            return cumulative.getTotalCount();
        }
    }

    /** A copy of the histogram of every closed period together. */
    public Histogram cumulativeCopy() {
        synchronized (lock) {
            return cumulative.copy();
        }
    }

    /** Called on the closing thread after each period closes; exceptions are caught and logged. */
    public void addPeriodListener(Consumer<PeriodSummary> listener) {
        periodListeners.add(Objects.requireNonNull(listener));
    }

    /**
     * Writes the standard HdrHistogram interval log: header (comment, format version, start time, base time, legend)
     * then one line per retained closed period, time stamps relative to the base time (the first period's start).
     */
    public void writeLog(OutputStream out) {
        List<String> lines;
        long dropped;
        synchronized (lock) {
            lines = new ArrayList<>(retainedLogLines);
            dropped = droppedPeriods;
        }
        PrintStream print = new PrintStream(out, false, StandardCharsets.US_ASCII);
        HistogramLogWriter header = new HistogramLogWriter(print);
        header.outputComment("pacer " + name + " histograms, values in nanoseconds, sample period " + periodMillis + " ms"
                + (dropped > 0 ? ", oldest " + dropped + " periods dropped" : ""));
        header.outputLogFormatVersion();
        header.outputStartTime(firstPeriodStartEpochMillis);
        header.outputBaseTime(firstPeriodStartEpochMillis);
        header.outputLegend();
        for (String line : lines) {
            print.print(line);
        }
        print.flush();
    }

    /** Closes the open (partial) period, stops the closing thread. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LockSupport.unpark(closer);
        try {
            closer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closePeriods() {
        while (!closed) {
            long nowMillis = clock.millis();
            long boundary = PeriodBoundaries.nextBoundaryEpochMillis(lastBoundaryEpochMillis, periodMillis);
            if (nowMillis < boundary) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(boundary - nowMillis));
                continue;
            }
            // Late by one or more periods (a pause): the interval covers them all, and its length says so.
            closeInterval(PeriodBoundaries.boundaryAtOrBeforeEpochMillis(nowMillis, periodMillis));
        }
        long nowMillis = clock.millis();
        closeInterval(Math.max(nowMillis, lastBoundaryEpochMillis));
    }

    private void closeInterval(long endEpochMillis) {
        try {
            Histogram closedInterval = recorder.getIntervalHistogram(interval);
            closedInterval.setStartTimeStamp(lastBoundaryEpochMillis);
            closedInterval.setEndTimeStamp(endEpochMillis);
            lineBuffer.reset();
            lineWriter.outputIntervalHistogram(lineEncoding.of(closedInterval));
            String line = lineBuffer.toString(StandardCharsets.US_ASCII);
            PeriodSummary summary = PeriodSummary.of(closedInterval);
            synchronized (lock) {
                retainedLogLines.addLast(line);
                while (retainedLogLines.size() > maxRetainedPeriods) {
                    retainedLogLines.removeFirst();
                    droppedPeriods++;
                }
                if (closedInterval.getTotalCount() > 0) {   // adding walks every count: nothing to add, no walk
                    cumulative.add(closedInterval);
                }
                lastPeriod = summary;
                interval = closedInterval;
                lastBoundaryEpochMillis = endEpochMillis;
            }
            for (Consumer<PeriodSummary> listener : periodListeners) {
                try {
                    listener.accept(summary);
                } catch (RuntimeException e) {
                    System.getLogger(PeriodSampler.class.getName()).log(System.Logger.Level.WARNING,
                            "period listener of " + name + " failed", e);
                }
            }
        } catch (RuntimeException e) {
            System.getLogger(PeriodSampler.class.getName()).log(System.Logger.Level.ERROR,
                    "closing a period of " + name + " failed", e);
            lastBoundaryEpochMillis = endEpochMillis;
        }
    }

    public static final class Builder {
        private final String name;
        private Duration period = Duration.ofSeconds(1);
        private long highestTrackableNanos = DEFAULT_HIGHEST_TRACKABLE_NANOS;
        private int maxRetainedPeriods = DEFAULT_MAX_RETAINED_PERIODS;
        private Clock clock = Clock.systemUTC();

        private Builder(String name) {
            this.name = Objects.requireNonNull(name);
        }

        public Builder period(Duration period) {
            this.period = Objects.requireNonNull(period);
            return this;
        }

        public Builder highestTrackableNanos(long highestTrackableNanos) {
            if (highestTrackableNanos < 2) {
                throw new IllegalArgumentException("highestTrackableNanos must be >= 2");
            }
            this.highestTrackableNanos = highestTrackableNanos;
            return this;
        }

        public Builder maxRetainedPeriods(int maxRetainedPeriods) {
            if (maxRetainedPeriods < 1) {
                throw new IllegalArgumentException("maxRetainedPeriods must be >= 1");
            }
            this.maxRetainedPeriods = maxRetainedPeriods;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Starts the closing thread. */
        public PeriodSampler start() {
            return new PeriodSampler(this);
        }
    }
}
