package dev.pacer.engine.protocol;

/**
 * An agent's answer to one call: a value, a refusal (an HTTP status other than the contract's), or nothing at all.
 *
 * @param value       the answer, when there is one
 * @param statusCode  the HTTP status of a refusal (0 otherwise)
 * @param error       why there is no value
 */
public record AgentAnswer<T>(T value, int statusCode, String error) {

    public static <T> AgentAnswer<T> of(T value) {
        return new AgentAnswer<>(value, 0, null);
    }

    /** The agent answered, but refused (e.g. 400 for a bad run, 409 for a run it already took). */
    public static <T> AgentAnswer<T> refused(int statusCode, String error) {
        return new AgentAnswer<>(null, statusCode, error);
    }

    /** No answer: connection refused, timeout, the API server's proxy failing. */
    public static <T> AgentAnswer<T> unreachable(String error) {
        return new AgentAnswer<>(null, 0, error);
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
