package dev.pacer.engine.protocol;

import java.io.IOException;
import java.util.Optional;

import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.RunReport;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.MetricsText;

/** What every platform observes the same way: the agents, over the contract. A platform says how to reach one. */
public abstract class AgentObservations implements Observations {

    /** The agent of a role ({@code server}, {@code client-0}); {@link IllegalStateException} when it is not there. */
    protected abstract AgentClient agent(String role);

    @Override
    public AgentAnswer<AgentInfo> info(String role) {
        return AgentAnswer.ask(() -> agent(role).info());
    }

    @Override
    public AgentAnswer<RunReport> report(String client) {
        return AgentAnswer.ask(() -> agent(client).runStatus());
    }

    @Override
    public Optional<Double> serverLastPeriodP99Seconds() {
        try {
            return MetricsText.value(agent(AgentContract.ROLE_SERVER).metricsText(), "pacer_period_latency_seconds", "stat", "p99");
        } catch (IOException | IllegalStateException e) {
            return Optional.empty();   // a server without the agent contract has no live figure; the run goes on
        }
    }
}
