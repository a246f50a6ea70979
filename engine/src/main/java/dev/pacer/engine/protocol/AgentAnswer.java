package dev.pacer.engine.protocol;

import java.io.IOException;

import dev.pacer.engine.agents.AgentClient;

/**
 * An agent's answer to one call: a value, a refusal (an HTTP status other than the contract's), or nothing at all.
 *
 * @param value       the answer, when there is one
 * @param statusCode  the HTTP status of a refusal (0 otherwise)
 * @param error       why there is no value
 * @param answerNanos how long the call took, answered or not (0 when not measured): what the start's lead is sized from
 */
public record AgentAnswer<T>(T value, int statusCode, String error, long answerNanos) {

    /** A call to an agent. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws IOException;
    }

    /**
     * The answer of a call: its value; a refusal when the agent answered outside the contract; unreachable when it
     * did not answer, or when its pod or process is not there to ask ({@link IllegalStateException}).
     */
    public static <T> AgentAnswer<T> ask(Call<T> call) {
        long begunNanos = System.nanoTime();
        AgentAnswer<T> answer;
        try {
            answer = of(call.call());
        } catch (AgentClient.AgentException e) {
            answer = refused(e.statusCode(), e.getMessage());
        } catch (IOException | IllegalStateException e) {
            answer = unreachable(e.getMessage());
        }
        return answer.took(System.nanoTime() - begunNanos);
    }

    /** This answer, as taking {@code nanos}. */
    public AgentAnswer<T> took(long nanos) {
        return new AgentAnswer<>(value, statusCode, error, nanos);
    }

    public static <T> AgentAnswer<T> of(T value) {
        return new AgentAnswer<>(value, 0, null, 0);
    }

    /** The agent answered, but refused (e.g. 400 for a bad run, 409 for a run it already took). */
    public static <T> AgentAnswer<T> refused(int statusCode, String error) {
        return new AgentAnswer<>(null, statusCode, error, 0);
    }

    /** No answer: connection refused, timeout, the API server's proxy failing. */
    public static <T> AgentAnswer<T> unreachable(String error) {
        return new AgentAnswer<>(null, 0, error, 0);
    }

    public boolean answered() {
        return value != null;
    }

    public boolean refused() {
        return value == null && statusCode != 0;
    }

    public boolean unreachable() {
        return value == null && statusCode == 0;
    }
}
