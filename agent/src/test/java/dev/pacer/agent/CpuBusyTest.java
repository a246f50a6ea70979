package dev.pacer.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class CpuBusyTest {
    private static final String STAT = """
            cpu  1000 10 500 90000 40 3 7 0 0 0
            cpu0 600 5 300 45000 20 2 4 0 0 0
            cpu1 400 5 200 45000 20 1 3 2 0 0
            intr 123 4 5
            ctxt 999
            """;

    @Test
    void sumsUserNiceSystemIrqAndSoftirqOfTheCpusAskedNotSteal() {
        assertEquals((400 + 5 + 200 + 1 + 3) * 10_000_000L, CpuBusy.busyNanos(STAT, List.of(1)));
        assertEquals((600 + 5 + 300 + 2 + 4 + 400 + 5 + 200 + 1 + 3) * 10_000_000L, CpuBusy.busyNanos(STAT, List.of(0, 1)));
    }

    @Test
    void aCpuNumberedTenOrMoreIsNotTakenForCpuOne() {
        String stat = STAT.replace("cpu1 ", "cpu11 ");
        assertEquals((400 + 5 + 200 + 1 + 3) * 10_000_000L, CpuBusy.busyNanos(stat, List.of(11)));
        assertEquals(-1, CpuBusy.busyNanos(stat, List.of(1)));
        assertEquals(-1, CpuBusy.busyNanos("cpu  1000 10 500 90000 40 3 7 0 0 0\n", List.of(0)),
                "the total of every CPU is no CPU's");
    }

    @Test
    void cpusTheKernelDoesNotListGiveNoFigure() {
        assertEquals(-1, CpuBusy.busyNanos(STAT, List.of(7)));
    }

    @Test
    void theMachinesOwnProcStatParses() throws Exception {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/stat"));
        long first = CpuBusy.busyNanos(stat, List.of(0));
        assertEquals(true, first > 0, "CPU 0 has been busy since boot");
    }
}
