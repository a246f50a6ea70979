package dev.pacer.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class PinningTest {

    @Test
    void readsLinuxCpuLists() {
        assertThat(Pinning.parseCpuList("0-3,8,10-11").cardinality()).isEqualTo(7);
        assertThat(Pinning.parseCpuList("5\n").nextSetBit(0)).isEqualTo(5);
        assertThatThrownBy(() -> Pinning.parseCpuList("3-1")).hasMessageContaining("3-1");
        assertThatThrownBy(() -> Pinning.parseCpuList("a")).hasMessageContaining("'a'");
    }

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
