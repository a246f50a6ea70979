package dev.pacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.pacer.contract.CpuList;
import org.junit.jupiter.api.Test;

class CpuLayoutTest {
    @Test
    void twoCpusServerExclusiveClientsShare() {
        CpuLayout layout = CpuLayout.plan(List.of(0, 1), 1, List.of("client-0", "client-1"), 1, true, true);
        assertThat(layout.cpusByRole()).containsEntry("server", List.of(0)).containsEntry("client-0", List.of(1))
                .containsEntry("client-1", List.of(1));
        assertThat(layout.warnings()).singleElement().asString().contains("clients share CPUs");
    }

    @Test
    void enoughCpusGiveEveryoneTheirOwn() {
        CpuLayout layout = CpuLayout.plan(CpuList.cpus("0-7"), 2, List.of("client-0", "client-1", "client-2"), 2, true, true);
        assertThat(layout.cpusByRole()).containsEntry("server", List.of(0, 1)).containsEntry("client-0", List.of(2, 3))
                .containsEntry("client-1", List.of(4, 5)).containsEntry("client-2", List.of(6, 7));
        assertThat(layout.warnings()).isEmpty();
    }

    @Test
    void impossiblePinningPinsNothingAndSaysSo() {
        CpuLayout layout = CpuLayout.plan(List.of(0, 1), 2, List.of("client-0"), 1, true, true);
        assertThat(layout.cpusByRole()).isEmpty();
        assertThat(layout.warnings()).singleElement().asString().contains("pinning impossible");
        assertThat(CpuLayout.plan(List.of(0, 1), 1, List.of("client-0"), 1, false, false).cpusByRole()).isEmpty();
    }

    @Test
    void perRoleOverridesPinOnlyTheRoleAskedFor() {
        CpuLayout serverOnly = CpuLayout.plan(List.of(0, 1, 2), 1, List.of("client-0"), 1, true, false);
        assertThat(serverOnly.cpusByRole()).containsOnlyKeys("server").containsEntry("server", List.of(0));
        assertThat(serverOnly.warnings()).singleElement().asString().contains("placement.clients.pinCpus: false");
        CpuLayout clientsOnly = CpuLayout.plan(List.of(0, 1), 1, List.of("client-0", "client-1"), 1, false, true);
        assertThat(clientsOnly.cpusByRole()).containsOnlyKeys("client-0", "client-1")
                .containsEntry("client-0", List.of(0)).containsEntry("client-1", List.of(1));
        assertThat(clientsOnly.warnings()).singleElement().asString().contains("placement.server.pinCpus: false");
    }

    @Test
    void theProbeGetsAFreeCpuElseSharesTheServersButNeverAClients() {
        CpuLayout roomy = CpuLayout.plan(List.of(0, 1, 2, 3), 1, List.of("client-0", "client-1"), 1, true, true, true);
        assertThat(roomy.probeCpus()).containsExactly(3);
        assertThat(roomy.describe()).isEqualTo("CPUs: server 0, client-0 1, client-1 2, kernel probe 3, pacer 3");

        CpuLayout twoCpus = CpuLayout.plan(List.of(0, 1), 1, List.of("client-0", "client-1"), 1, true, true, true);
        assertThat(twoCpus.probeCpus()).as("no CPU free: the server's, not client-0's and client-1's CPU 1").containsExactly(0);
        assertThat(twoCpus.warnings()).anySatisfy(w -> assertThat(w).contains("the kernel probe shares the server's CPUs [0]"));

        CpuLayout clientsUnpinned = CpuLayout.plan(List.of(0, 1), 1, List.of("client-0"), 1, true, false, true);
        assertThat(clientsUnpinned.probeCpus()).as("CPU 1 is held by no role").containsExactly(1);

        assertThat(CpuLayout.plan(List.of(0, 1, 2), 1, List.of("client-0"), 1, false, true, true).probeCpus())
                .as("an unpinned server: nothing to keep the probe beside").isNull();
        assertThat(CpuLayout.plan(List.of(0, 1, 2), 1, List.of("client-0"), 1, true, true, false).probeCpus()).isNull();
    }

    @Test
    void pacersOwnProcessNeverRunsOnAClientsCpu() {
        assertThat(CpuLayout.plan(List.of(0, 1, 2, 3), 1, List.of("client-0", "client-1"), 1, true, true, true).selfCpus())
                .as("the CPU no role holds").containsExactly(3);
        assertThat(CpuLayout.plan(List.of(0, 1), 1, List.of("client-0", "client-1"), 1, true, true, true).selfCpus())
                .as("no CPU free: the server's, not the clients' CPU 1").containsExactly(0);
        assertThat(CpuLayout.plan(List.of(0, 1, 2), 1, List.of("client-0"), 1, false, true).selfCpus())
                .as("an unpinned server: every CPU but client-0's").containsExactly(1, 2);
        assertThat(CpuLayout.plan(List.of(0, 1), 1, List.of("client-0", "client-1"), 1, false, true).selfCpus())
                .as("the clients hold every CPU: nowhere to go").isNull();
        assertThat(CpuLayout.plan(List.of(0, 1), 1, List.of("client-0"), 1, true, false).selfCpus())
                .as("no client pinned: nothing to keep pacer off").isNull();
    }

    @Test
    void anUnpinnedRoleIsStartedOnEveryCpuNotOnPacersOwn() {
        CpuLayout serverUnpinned = CpuLayout.plan(List.of(0, 1, 2), 1, List.of("client-0"), 1, false, true);
        assertThat(serverUnpinned.cpusOf("client-0")).containsExactly(0);
        assertThat(serverUnpinned.cpusOf("server")).as("every CPU, said explicitly: pacer itself runs on 1-2").containsExactly(0, 1, 2);
        assertThat(new CpuLayout(java.util.Map.of(), null, List.of()).cpusOf("server")).as("nothing known: nothing set").isNull();
    }
}
