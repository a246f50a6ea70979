package dev.pacer.engine.protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.Measure;
import dev.pacer.contract.AgentClock;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.AgentClient;
import dev.pacer.engine.agents.ClockOffset;
import dev.pacer.engine.agents.MetricsText;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.plan.RunPlan;

/**
 * What every platform observes the same way: the agents, over the contract, and who answers for the server
 * ({@link Measure#serverAnswerer()}). A platform says how to reach a process's own agent and the probe's.
 */
public abstract class AgentObservations implements Observations {
    protected final RunPlan plan;

    protected AgentObservations(RunPlan plan) {
        this.plan = plan;
    }

    /** The agent inside a role's own process ({@code server}, {@code client-0}); {@link IllegalStateException} when not there. */
    protected abstract AgentClient processAgent(String role);

    /** The kernel probe's agent beside the server; {@link IllegalStateException} when not there. */
    protected abstract AgentClient probeAgent();

    /** Who answers the contract for a role: a client's own agent; for the server, the one its measure names. */
    public final AgentClient agent(String role) {
        if (!AgentContract.ROLE_SERVER.equals(role)) {
            return processAgent(role);
        }
        return switch (plan.server().measure().serverAnswerer()) {
            case SERVER_PROCESS -> processAgent(role);
            case PROBE -> probeAgent();
            case NOBODY -> throw new IllegalStateException("the server is not measured (spec.server.measure: none)");
        };
    }

    /** Every histogram of the run, from the agents the measure names: the server's answerer, the probe beside, the clients. */
    public RunCollector.Collected collect(long windowStartEpochMs, long windowEndEpochMs) throws IOException {
        Map<String, AgentClient> clients = new LinkedHashMap<>();
        plan.clients().forEach(c -> clients.put(c.name(), agent(c.name())));
        Measure measure = plan.server().measure();
        AgentClient server = measure.measured() ? agent(AgentContract.ROLE_SERVER) : null;
        AgentClient beside = measure.probeBeside() ? probeAgent() : null;
        return RunCollector.collect(plan, server, beside, clients, windowStartEpochMs, windowEndEpochMs);
    }

    @Override
    public AgentAnswer<AgentInfo> info(String role) {
        return AgentAnswer.ask(() -> agent(role).info());
    }

    /** The operator's (or CLI's) wall clock against the agent's, read around each call. */
    @Override
    public AgentAnswer<ClockOffset.Sample> clock(String role) {
        return AgentAnswer.ask(() -> {
            AgentClient agent = agent(role);
            List<ClockOffset.Sample> samples = new ArrayList<>();
            for (int i = 0; i < ClockOffset.SAMPLES; i++) {
                long sent = AgentClock.now().epochMicros();
                long at = agent.clock().epochMicros();
                samples.add(new ClockOffset.Sample(sent, at, AgentClock.now().epochMicros()));
            }
            return ClockOffset.best(samples).orElseThrow();
        });
    }

    @Override
    public AgentAnswer<LoadRunStatus> runStatus(String client) {
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
