package dev.pacer.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcFileTest {
    @Test
    void aProcFileKeptOpenIsReadAfreshAtEachRead() {
        try (ProcFile stat = new ProcFile(Path.of("/proc/self/stat"), 64)) {
            long first = utimePlusStime(stat.read());
            CpuSpin.spinCpu(TimeUnit.MILLISECONDS.toNanos(100));   // ten of the kernel's 10 ms ticks, by this thread's own clock
            assertThat(utimePlusStime(stat.read())).as("the CPU spent between the reads, in ticks").isGreaterThan(first);
        }
    }

    @Test
    void aFileLongerThanTheBufferIsReadWhole(@TempDir Path dir) throws Exception {
        String text = "x".repeat(10_000) + "\nVmHWM:\t  2048 kB\n";
        Path file = Files.writeString(dir.resolve("status"), text);
        try (ProcFile long_ = new ProcFile(file, 64)) {
            assertThat(long_.read()).isEqualTo(text);
            assertThat(long_.read()).as("and again").isEqualTo(text);
        }
    }

    @Test
    void aFileThatReadsEmptyReadsAsUnreadable(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("schedstat"), "");
        try (ProcFile empty = new ProcFile(file, 64)) {
            assertThat(empty.read()).as("as a task's file reads once the task ended").isNull();
            Files.writeString(file, "1 2 3\n");
            assertThat(empty.read()).as("opened again at the next read").isEqualTo("1 2 3\n");
        }
    }

    @Test
    void aFieldIsFoundOnItsOwnLineWhereverTheLineIs() {
        String status = "VmPeak:\t 100 kB\nVmRSS:\t  1234 kB\nRssAnon:\t 5 kB\nVmHWM:\t 2048 kB";
        assertThat(ProcFile.field(status, "VmPeak:")).isEqualTo("100 kB");
        assertThat(ProcFile.field(status, "VmRSS:")).isEqualTo("1234 kB");
        assertThat(ProcFile.field(status, "VmHWM:")).as("the last line, without a newline").isEqualTo("2048 kB");
        assertThat(ProcFile.field(status, "Rss:")).as("only at a line's start").isNull();
    }


    /** Fields 14 and 15 of /proc/self/stat, after the command's closing parenthesis. */
    private static long utimePlusStime(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
