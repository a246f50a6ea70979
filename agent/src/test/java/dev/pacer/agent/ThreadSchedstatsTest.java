package dev.pacer.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** On this process's real /proc: files kept open read afresh, and closed once their thread ended. */
class ThreadSchedstatsTest {
    @Test
    void aFileKeptOpenShowsTheCpuItsThreadSpentSinceTheLastRead() throws Exception {
        String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
        try (ThreadSchedstats schedstats = new ThreadSchedstats(ResourceSampler.TASKS)) {
            Map<String, ThreadSchedstats.Figures> first = readAll(schedstats);
            int filesOpen = schedstats.filesOpen();
            CpuSpin.spinCpu(TimeUnit.MILLISECONDS.toNanos(200));
            Map<String, ThreadSchedstats.Figures> second = readAll(schedstats);
            assertThat(first).containsKey(self);
            assertThat(filesOpen).as("one file kept open per thread read").isEqualTo(first.size());
            assertThat(second.get(self).cpuNanos() - first.get(self).cpuNanos())
                    .as("200 ms spun on this thread between the reads").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
            assertThat(schedstats.filesOpen()).as("the same files read again, none opened beside them").isEqualTo(filesOpen);
        }
    }

    @Test
    void aThreadThatEndedIsLeftOutAndItsFileClosed() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        String[] tid = new String[1];
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                tid[0] = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
                started.countDown();
                end.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        started.await();
        try (ThreadSchedstats schedstats = new ThreadSchedstats(ResourceSampler.TASKS)) {
            assertThat(readAll(schedstats)).containsKey(tid[0]);
            int withWorker = schedstats.filesOpen();
            end.countDown();
            worker.join();
            // the kernel lets the thread go a moment after Java saw it end
            Path task = ResourceSampler.TASKS.resolve(tid[0]);
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); Files.exists(task) && System.nanoTime() < deadline; ) {
                Thread.sleep(1);
            }
            assertThat(task).as("the thread gone from /proc").doesNotExist();
            assertThat(readAll(schedstats)).doesNotContainKey(tid[0]);
            assertThat(schedstats.filesOpen()).isLessThan(withWorker);
        }
    }

    @Test
    void aSchedstatLineIsReadAsItsThreeNumbers() {
        ThreadSchedstats.Figures figures = ThreadSchedstats.parse("96049559 5699248 92\n");
        assertThat(figures).isEqualTo(new ThreadSchedstats.Figures(96_049_559, 5_699_248, 92));
        assertThat(ThreadSchedstats.parse("1 2 3")).isEqualTo(new ThreadSchedstats.Figures(1, 2, 3));
        assertThatThrownBy(() -> ThreadSchedstats.parse("12 34\n")).hasMessageContaining("three numbers");
    }

    private static Map<String, ThreadSchedstats.Figures> readAll(ThreadSchedstats schedstats) throws Exception {
        Map<String, ThreadSchedstats.Figures> figures = new HashMap<>();
        schedstats.readAll(figures::put);
        return figures;
    }

}
