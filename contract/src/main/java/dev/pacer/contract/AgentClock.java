package dev.pacer.contract;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The body of {@code GET /pacer/v1/clock}: the agent's wall clock when it answered, read as late as it can be, so that
 * an orchestrator bracketing the call with two readings of its own clock learns the offset between the two clocks
 * within half the round trip (as NTP does). Golden file: {@code agent-clock.json}.
 *
 * @param epochMicros the agent's wall clock, microseconds since the epoch
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AgentClock(long epochMicros) {
    /** This process's wall clock now, to the microsecond: what an agent answers, and what an orchestrator reads around it. */
    public static AgentClock now() {
        Instant now = Instant.now();
        return new AgentClock(now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000);
    }
}
