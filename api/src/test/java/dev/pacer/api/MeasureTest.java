package dev.pacer.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The one rule of who measures the server, and the schema's word for it. */
class MeasureTest {
    @Test
    void theSchemasPatternTakesEveryWordAndNoOther() {
        Arrays.stream(Measure.values()).forEach(m -> assertThat(m.spec()).matches(Measure.PATTERN));
        assertThat("AGENT").doesNotMatch(Measure.PATTERN);
        assertThat("probes").doesNotMatch(Measure.PATTERN);
        assertThat(Measure.PATTERN.split("\\|")).hasSize(Measure.values().length);
    }

    @Test
    void unsetIsTheAgentAndAnUnknownWordIsRefusedNamingTheChoices() {
        assertThat(Measure.of(null)).isEqualTo(Measure.AGENT);
        assertThat(Measure.parse("kernel")).isEmpty();
        assertThatThrownBy(() -> Measure.of("kernel")).hasMessageContaining("agent, probe, both or none");
    }

    @Test
    void whoAnswersForTheServer() {
        assertThat(Measure.AGENT.serverAnswerer()).isEqualTo(Measure.ServerAnswerer.SERVER_PROCESS);
        assertThat(Measure.BOTH.serverAnswerer()).isEqualTo(Measure.ServerAnswerer.SERVER_PROCESS);
        assertThat(Measure.PROBE.serverAnswerer()).isEqualTo(Measure.ServerAnswerer.PROBE);
        assertThat(Measure.NONE.serverAnswerer()).isEqualTo(Measure.ServerAnswerer.NOBODY);
        assertThat(Arrays.stream(Measure.values()).filter(Measure::probeBeside)).containsExactly(Measure.BOTH);
        assertThat(Arrays.stream(Measure.values()).filter(Measure::probe)).containsExactly(Measure.PROBE, Measure.BOTH);
        assertThat(Arrays.stream(Measure.values()).filter(Measure::agent)).containsExactly(Measure.AGENT, Measure.BOTH);
    }

    @Test
    void theServersFiguresAreTheProbesServiceTimeOnlyWhereItAnswersInTheServersPlace() {
        assertThat(Measure.PROBE.mainSeries()).isEqualTo(dev.pacer.contract.AgentContract.SERIES_SERVICE);
        assertThat(Arrays.stream(Measure.values()).filter(m -> m != Measure.PROBE).map(Measure::mainSeries))
                .containsOnly(dev.pacer.contract.AgentContract.SERIES_PROCESSING);
    }
}
