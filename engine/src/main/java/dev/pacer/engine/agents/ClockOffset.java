package dev.pacer.engine.agents;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.pacer.engine.plan.RunPlan;

/**
 * How far an agent's wall clock is from the orchestrator's, measured as NTP does: the orchestrator reads its clock
 * ({@code sent}), asks the agent for its own ({@code agent}), and reads its clock again ({@code received}). If the
 * request and its answer took as long as each other, the agent read its clock at the midpoint, so
 * {@code offset = agent - (sent + received) / 2}, wrong by at most half the round trip. Of several samples the one with
 * the shortest round trip is kept (NTP's clock filter): it is the tightest bound.
 * <p>Why it matters: every client starts its load at one instant of the orchestrator's clock, read on its own clock, and
 * every role cuts its periods by its own clock. A client whose clock is ahead starts early and its periods are not
 * the server's.
 */
public final class ClockOffset {
    /**
     * The share of {@code criteria.maxSendLagP99} an agent's clock may be off before the run fails: a client that far
     * off starts that much early or late, which the run's own lateness limit must still dwarf.
     */
    public static final double MAX_SHARE_OF_SEND_LAG = 0.25;
    /** Round trips per agent; the shortest is kept. */
    public static final int SAMPLES = 5;

    private ClockOffset() {
    }

    /** One round trip, every reading in microseconds since the epoch. */
    public record Sample(long sentEpochMicros, long agentEpochMicros, long receivedEpochMicros) {
        public long offsetMicros() {
            return agentEpochMicros - (sentEpochMicros + receivedEpochMicros) / 2;
        }

        public long roundTripMicros() {
            return receivedEpochMicros - sentEpochMicros;
        }
    }

    /** The sample with the shortest round trip; empty without samples. */
    public static Optional<Sample> best(List<Sample> samples) {
        return samples.stream().min((a, b) -> Long.compare(a.roundTripMicros(), b.roundTripMicros()));
    }

    /** The largest offset a run allows: {@value #MAX_SHARE_OF_SEND_LAG} of its {@code criteria.maxSendLagP99}. */
    public static long limitMicros(RunPlan plan) {
        return (long) (plan.criteria().maxSendLagP99().toNanos() / 1_000 * MAX_SHARE_OF_SEND_LAG);
    }

    /**
     * Why this agent's clock is too far off for the run, naming its pod and node and the fix; empty when the offset,
     * less what the round trip leaves uncertain, is within the limit.
     */
    public static Optional<String> problem(String pod, String node, Sample sample, long limitMicros) {
        long offset = sample.offsetMicros();
        long certain = Math.abs(offset) - sample.roundTripMicros() / 2;
        if (certain <= limitMicros) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "the clock of %s (node %s) is %.1f ms %s the operator's (measured over a %.1f ms "
                        + "round trip), more than the %.1f ms allowed (%d %% of spec.criteria.maxSendLagP99): its load would start that "
                        + "much %s and its periods would not be the others'; synchronize the node's clock (chrony or another NTP client), "
                        + "or keep the run off that node", pod, node, Math.abs(offset) / 1000.0, offset > 0 ? "ahead of" : "behind",
                sample.roundTripMicros() / 1000.0, limitMicros / 1000.0, Math.round(MAX_SHARE_OF_SEND_LAG * 100), offset > 0 ? "early" : "late"));
    }
}
