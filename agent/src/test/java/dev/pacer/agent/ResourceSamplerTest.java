package dev.pacer.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.pacer.contract.ResourceUse;
import org.junit.jupiter.api.Test;

/** On this process's real /proc: CPU spent and memory touched show in the period they happened in, and only there. */
class ResourceSamplerTest {
    private static volatile long sink;

    @Test
    void cpuAndPeakMemoryLandInTheirOwnPeriod() {
        ResourceSampler sampler = new ResourceSampler(1_000);
        CpuSpin.spinCpu(TimeUnit.MILLISECONDS.toNanos(300));
        byte[] touched = new byte[96 << 20];
        for (int i = 0; i < touched.length; i += 4096) {
            touched[i] = 1;
        }
        sink += touched[touched.length - 4096];
        sampler.periodClosed(1_000, 2_000);
        touched = null;
        System.gc();   // the 96 MiB go back to the heap; with the mark reset, the next peak is lower
        sampler.periodClosed(2_000, 3_000);

        ResourceUse use = sampler.snapshot();
        assertThat(use.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(use.periodMillis()).isEqualTo(1_000);
        assertThat(use.cpusAllowed()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(use.samples()).hasSize(2);
        ResourceUse.Sample busy = use.samples().get(0);
        ResourceUse.Sample quiet = use.samples().get(1);
        assertThat(busy.startEpochMs()).isEqualTo(1_000);
        assertThat(busy.endEpochMs()).isEqualTo(2_000);
        assertThat(busy.cpuNanos()).as("300 ms of CPU spent spinning").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(busy.peakRssBytes()).isGreaterThanOrEqualTo(busy.rssBytes()).isGreaterThan(96L << 20);
        assertThat(quiet.cpuNanos()).isLessThan(busy.cpuNanos());
        assertThat(quiet.gcCount()).as("System.gc() counted in its period").isPositive();
        assertThat(use.peakResets()).as("this kernel lets a process reset its own high-water mark").isTrue();
        assertThat(busy.maxHiccupMicros()).isNotNull().isNotNegative();
        assertThat(busy.runQueueWaitNanos()).isNotNull().isNotNegative();
        assertThat(busy.runSlices()).as("the spinning thread ran in at least one slice").isPositive();
        assertThat(busy.jitCpuNanos()).isNotNull().isNotNegative();
        assertThat(busy.neighbourCpuNanos()).as("this process's CPUs from /proc/stat").isNotNull().isNotNegative();
    }

    /** The compiler threads are found by the names the kernel gives them, in this very JVM. */
    @Test
    void thisJvmsCompilerThreadsAreRecognised() throws Exception {
        List<String> names = new ArrayList<>();
        try (var tasks = java.nio.file.Files.newDirectoryStream(ResourceSampler.TASKS)) {
            for (var task : tasks) {
                names.add(java.nio.file.Files.readString(task.resolve("comm")).trim());
            }
        }
        assertThat(names).anySatisfy(name -> assertThat(ResourceSampler.isCompilerThread(name)).as(name).isTrue());
        assertThat(names).filteredOn(ResourceSampler::isCompilerThread).allSatisfy(name -> assertThat(name).contains("CompilerThre"));
        assertThat(ResourceSampler.isCompilerThread("pacer-shard-0-2")).isFalse();
    }

    /** More spinning threads than CPUs: the time they waited for one shows, beside the CPU they got. */
    @Test
    void threadsWaitingForACpuShowAsRunQueueWait() throws InterruptedException {
        ResourceSampler sampler = new ResourceSampler(1_000);
        int threads = Runtime.getRuntime().availableProcessors() + 2;
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            spinners.add(Thread.ofPlatform().start(() -> spin(TimeUnit.MILLISECONDS.toNanos(800))));
        }
        Thread.sleep(400);
        sampler.periodClosed(1_000, 2_000);   // the spinners still run: a thread that ended is no longer listed
        for (Thread spinner : spinners) {
            spinner.join();
        }
        ResourceUse.Sample sample = sampler.snapshot().samples().getFirst();
        assertThat(sample.runQueueWaitNanos()).as("%d threads spinning for 400 ms on %d CPUs", threads, Runtime.getRuntime().availableProcessors())
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(200));
    }


    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = 0;
        while (System.nanoTime() < end) {
            x += System.nanoTime() % 7;
        }
        sink += x;
    }
}
