package dev.pacer.engine.protocol;

/**
 * What an orchestrator sees of one role's pod or process this step. The protocol decides what an absence means: before
 * a role is created it is simply not there yet; once the run depends on it, it was deleted.
 *
 * @param presence            absent, starting, ready or failed
 * @param name                the pod's or process's name, for messages (e.g. {@code quickstart-server})
 * @param node                where it runs (a node, or {@code localhost})
 * @param address             its address (pod IP, {@code 127.0.0.1})
 * @param port                its application port when the platform chose it (a local server on a free port);
 *                            {@code null}: {@code spec.server.port}
 * @param askedExclusiveCpus  the exclusive CPUs the orchestrator asked its platform for this role (Kubernetes:
 *                            Guaranteed pods with the static CPU manager), {@code null} when none were: then its
 *                            pinning is not checked
 * @param cpusRequested       what was asked, as text for the status ({@code 2}, {@code 500m}, {@code 1,3})
 * @param reason              why it is not ready or failed (e.g. {@code ImagePullBackOff}, {@code ProcessExited})
 * @param message             a sentence naming the pod and what happened
 */
public record RoleObservation(Presence presence, String name, String node, String address, Integer port,
                              Long askedExclusiveCpus, String cpusRequested, String reason, String message) {

    public enum Presence {
        /** No pod or process of this role exists. */
        ABSENT,
        /** It exists and is not ready yet; {@code reason}/{@code message} say what holds it back, if anything does. */
        STARTING,
        /** Its agent answers health checks. */
        READY,
        /** It cannot become or stay ready (exited, evicted, unpullable image): the run fails. */
        FAILED
    }

    public static RoleObservation absent(String name) {
        return new RoleObservation(Presence.ABSENT, name, null, null, null, null, null, null, null);
    }

    public boolean is(Presence expected) {
        return presence == expected;
    }

    public boolean hasProblem() {
        return reason != null;
    }
}
