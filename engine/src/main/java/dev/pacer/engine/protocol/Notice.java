package dev.pacer.engine.protocol;

/**
 * Something a user should hear of at once: a Kubernetes event on the run, a line printed by the CLI.
 *
 * @param warning whether it is bad news
 * @param reason  a CamelCase reason, e.g. {@code LoadScheduled}
 * @param message one sentence
 */
public record Notice(boolean warning, String reason, String message) {

    public static Notice normal(String reason, String message) {
        return new Notice(false, reason, message);
    }

    public static Notice warning(String reason, String message) {
        return new Notice(true, reason, message);
    }
}
