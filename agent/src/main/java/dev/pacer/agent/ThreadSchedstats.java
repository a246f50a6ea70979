package dev.pacer.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Each thread's {@code /proc/self/task/<tid>/schedstat} (time on a CPU, time waiting for one, slices), read at every
 * period's close, each file a {@link ProcFile} kept open; the threads are listed in one call. Opened, read and split
 * anew each period, 27 threads cost about 1.7 ms of CPU, as code that runs once a second runs interpreted: inside a
 * server under test, on the CPUs it is measured on. Kept open, about 0.25 ms.
 */
final class ThreadSchedstats implements AutoCloseable {
    /** One thread's figures, as the kernel counts them since the thread began. */
    record Figures(long cpuNanos, long waitNanos, long slices) {
    }

    /** Receives each live thread's figures. */
    interface Reader {
        void accept(String tid, Figures figures);
    }

    private static final int LINE_BYTES = 64;   // "<cpu ns> <wait ns> <slices>\n": at most 62 bytes

    private final Path tasks;
    private final Map<String, ProcFile> open = new HashMap<>();

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
            ProcFile file = open.computeIfAbsent(tid, id -> new ProcFile(tasks.resolve(id).resolve("schedstat"), LINE_BYTES));
            // a file kept open reads nothing once its thread ended; opened again, it finds a new thread of that id
            String line = file.read();
            if (line == null) {
                line = file.read();
            }
            if (line == null) {
                open.remove(tid);   // the thread ended since it was listed
                continue;
            }
            reader.accept(tid, parse(line));
        }
        Set<String> live = Set.of(tids);
        open.entrySet().removeIf(file -> {
            if (live.contains(file.getKey())) {
                return false;
            }
            file.getValue().close();
            return true;
        });
    }

    /** Files kept open now: one per thread seen alive at the last read. */
    int filesOpen() {
        return open.size();
    }

    /** The three numbers of a schedstat line, parsed by hand: no regular expression, no string per field. */
    static Figures parse(String line) {
        long[] numbers = new long[3];
        int found = 0;
        long value = 0;
        boolean inNumber = false;
        for (int i = 0; i < line.length() && found < 3; i++) {
            char c = line.charAt(i);
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
        open.values().forEach(ProcFile::close);
        open.clear();
    }
}
