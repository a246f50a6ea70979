package dev.pacer.engine.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class PinningTest {

    @Test
    void exclusiveCpusOfTheAskedNumberArePinned() {
        assertThat(Pinning.problems(List.of(new Pinning.Asked("s", 2, "2-3"), new Pinning.Asked("c", 1, "5")))).isEmpty();
    }

    @Test
    void theSharedPoolIsNotPinning() {
        assertThat(Pinning.problems(List.of(new Pinning.Asked("run-server", 1, "0-1"))))
                .singleElement().satisfies(p -> assertThat(p).contains("run-server", "1 exclusive CPU", "0-1 (2)", "cpuManagerPolicy"));
    }

    @Test
    void twoPinnedPodsOnTheSameCpuAreNotExclusive() {
        assertThat(Pinning.problems(List.of(new Pinning.Asked("a", 1, "3"), new Pinning.Asked("b", 1, "3"))))
                .singleElement().satisfies(p -> assertThat(p).contains("pod b", "shared with another pinned pod"));
    }

    @Test
    void anUnknownCpusetCannotBeTrusted() {
        assertThat(Pinning.problems(List.of(new Pinning.Asked("x", 1, null)))).singleElement()
                .satisfies(p -> assertThat(p).contains("pod x did not report its cpuset"));
    }
}
