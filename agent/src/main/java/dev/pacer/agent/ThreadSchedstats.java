package dev.pacer.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Each thread's {@code /proc/self/task/<tid>/schedstat} (time on a CPU, time waiting for one, slices), read at every
 * period's close. Each file is opened once and read again from its start, where the kernel writes it afresh; the
 * threads are listed in one call. Opened, read and split anew each period, 27 threads cost about 1.7 ms of CPU, as
 * code that runs once a second runs interpreted: inside a server under test, on the CPUs it is measured on. Kept open,
 * about 0.25 ms.
 */
final class ThreadSchedstats implements AutoCloseable {
    /** One thread's figures, as the kernel counts them since the thread began. */
    record Figures(long cpuNanos, long waitNanos, long slices) {
    }

    /** Receives each live thread's figures. */
    interface Reader {
        void accept(String tid, Figures figures);
    }

    private final Path tasks;
    private final Map<String, FileChannel> open = new HashMap<>();
    private final ByteBuffer line = ByteBuffer.allocate(128);   // "<cpu ns> <wait ns> <slices>\n": at most 62 bytes

    ThreadSchedstats(Path tasks) {
        this.tasks = tasks;
    }

    /** Reads every live thread's figures; a thread that ended as it was read is left out, and its file closed. */
    void readAll(Reader reader) throws IOException {
        String[] tids = tasks.toFile().list();
        if (tids == null) {
            throw new IOException("cannot list " + tasks);
        }
        for (String tid : tids) {
            Figures figures = read(tid);
            if (figures != null) {
                reader.accept(tid, figures);
            }
        }
        Set<String> live = Set.of(tids);
        for (Iterator<Map.Entry<String, FileChannel>> kept = open.entrySet().iterator(); kept.hasNext(); ) {
            Map.Entry<String, FileChannel> file = kept.next();
            if (!live.contains(file.getKey())) {
                closeQuietly(file.getValue());
                kept.remove();
            }
        }
    }

    /** Files kept open now: one per thread seen alive at the last read. */
    int filesOpen() {
        return open.size();
    }

    /** A file kept open reads from a thread that ended (its id may have gone to a new one): opened again, once. */
    private Figures read(String tid) {
        FileChannel kept = open.get(tid);
        if (kept != null) {
            Figures figures = readFrom(kept);
            if (figures != null) {
                return figures;
            }
            closeQuietly(kept);
            open.remove(tid);
        }
        try {
            FileChannel opened = FileChannel.open(tasks.resolve(tid).resolve("schedstat"));
            Figures figures = readFrom(opened);
            if (figures == null) {
                closeQuietly(opened);
                return null;
            }
            open.put(tid, opened);
            return figures;
        } catch (IOException gone) {
            return null;   // the thread ended since it was listed
        }
    }

    private Figures readFrom(FileChannel file) {
        try {
            line.clear();
            if (file.read(line, 0) <= 0) {
                return null;
            }
            line.flip();
            return parse(line);
        } catch (IOException | IllegalArgumentException gone) {
            return null;
        }
    }

    /** The three numbers of a schedstat line, without a string per read. */
    static Figures parse(ByteBuffer text) {
        long[] numbers = new long[3];
        int found = 0;
        long value = 0;
        boolean inNumber = false;
        for (int i = text.position(); i < text.limit() && found < 3; i++) {
            byte c = text.get(i);
            if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
                inNumber = true;
            } else if (inNumber) {
                numbers[found++] = value;
                value = 0;
                inNumber = false;
            }
        }
        if (inNumber && found < 3) {
            numbers[found++] = value;
        }
        if (found < 3) {
            throw new IllegalArgumentException("a schedstat line has three numbers: " + found + " found");
        }
        return new Figures(numbers[0], numbers[1], numbers[2]);
    }

    @Override
    public void close() {
        open.values().forEach(ThreadSchedstats::closeQuietly);
        open.clear();
    }

    private static void closeQuietly(FileChannel file) {
        try {
            file.close();
        } catch (IOException ignored) {
            // read only: nothing was lost
        }
    }
}
