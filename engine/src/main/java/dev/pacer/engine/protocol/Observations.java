package dev.pacer.engine.protocol;

import java.util.List;
import java.util.Optional;

import dev.pacer.contract.AgentInfo;
import dev.pacer.contract.LoadRunStatus;
import dev.pacer.engine.agents.ClockOffset;
import dev.pacer.engine.preflight.Preflight;

/**
 * What the protocol may look at, asked lazily: a step reads only what its phase needs, so an orchestrator calls an
 * agent only when the protocol asks. The operator answers from its informer cache and the agents; the CLI from its
 * processes and the agents; tests from fakes.
 */
public interface Observations {
    /** The server's pod or process. */
    RoleObservation server();

    /**
     * Whether the run may start now, or which runs it waits for (their names, for the condition): the platform's limit
     * of runs at once, the oldest first. Locally always now.
     */
    Optional<String> waitingFor();

    /**
     * The cluster's nodes as the API lists them, to place the run's pods before creating any; empty where there are
     * no nodes (locally) or they may not be listed.
     */
    default Optional<List<Preflight.NodeFacts>> nodes() {
        return Optional.empty();
    }

    /** The kernel probe beside the server ({@code measure: probe/both}); absent until created. */
    RoleObservation probe();

    /** A client's pod or process, by role name ({@code client-0}). */
    RoleObservation client(String name);

    /** {@code GET /pacer/v1/info} of a role ({@code server}, {@code client-0}, …). */
    AgentAnswer<AgentInfo> info(String role);

    /**
     * A role's agent's clock against the orchestrator's: the shortest of {@link ClockOffset#SAMPLES} round trips to
     * {@code GET /pacer/v1/clock}.
     */
    AgentAnswer<ClockOffset.Sample> clock(String role);

    /** {@code GET /pacer/v1/run} of a client. */
    AgentAnswer<LoadRunStatus> runStatus(String client);

    /** The server's P99 of its last closed period, seconds, when its agent exposes it. */
    Optional<Double> serverLastPeriodP99Seconds();
}
