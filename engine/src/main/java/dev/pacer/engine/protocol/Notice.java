package dev.pacer.engine.protocol;

/**
 * Something a user should hear of at once: a Kubernetes event on the run, a line printed by the CLI.
 *
 * @param warning whether it is bad news
 * @param reason  a CamelCase reason, e.g. {@code LoadScheduled}
 * @param message one sentence
 * @param about   what it concerns: a platform that says itself when it starts or stops a role skips {@link About#ROLES}
 */
public record Notice(boolean warning, String reason, String message, About about) {

    /** What a notice concerns. */
    public enum About {
        /** the run: its load, its phases, its verdict */
        RUN,
        /** creating or deleting the roles' pods or processes */
        ROLES
    }

    public static Notice normal(String reason, String message) {
        return new Notice(false, reason, message, About.RUN);
    }

    /** News of the roles being created or deleted. */
    public static Notice roles(String reason, String message) {
        return new Notice(false, reason, message, About.ROLES);
    }

    public static Notice warning(String reason, String message) {
        return new Notice(true, reason, message, About.RUN);
    }
}
