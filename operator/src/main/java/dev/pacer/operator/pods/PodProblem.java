package dev.pacer.operator.pods;

import java.util.Optional;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

/**
 * What keeps a pod of a run from serving, read from the pod alone (no I/O), so the run can say it within seconds:
 * <ul>
 *   <li>fatal: the pod failed, was evicted, or its container ended — with {@code restartPolicy: Never} it will not
 *       come back, and a restarted agent would have lost its histograms anyway;</li>
 *   <li>waiting: not schedulable, image not pulled, container not created — Kubernetes may still resolve these
 *       (a node joins, a registry answers), so the run waits for them until {@code spec.timeout}.</li>
 * </ul>
 *
 * @param reason  a CamelCase reason for conditions and events, e.g. {@code ImagePullBackOff}
 * @param message one sentence naming the pod
 * @param fatal   whether the run must fail
 */
public record PodProblem(String reason, String message, boolean fatal) {

    public static Optional<PodProblem> of(Pod pod) {
        String name = pod.getMetadata().getName();
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return Optional.of(new PodProblem("PodDeleted", "pod " + name + " is being deleted", true));
        }
        var status = pod.getStatus();
        if (status == null) {
            return Optional.empty();
        }
        if ("Failed".equals(status.getPhase())) {
            String reason = status.getReason() == null ? "PodFailed" : "Pod" + status.getReason();
            String detail = status.getMessage() != null ? ": " + status.getMessage() : terminatedDetail(pod).map(d -> ": " + d).orElse("");
            return Optional.of(new PodProblem(reason, "pod " + name + " failed" + detail, true));
        }
        if ("Succeeded".equals(status.getPhase())) {
            return Optional.of(new PodProblem("PodExited", "pod " + name + " exited" + terminatedDetail(pod).map(d -> ": " + d).orElse(""), true));
        }
        for (ContainerStatus container : status.getContainerStatuses()) {
            if (container.getState() != null && container.getState().getTerminated() != null) {
                return Optional.of(new PodProblem("ContainerExited", "pod " + name + ": container " + container.getName() + " exited"
                        + terminatedDetail(pod).map(d -> ": " + d).orElse(""), true));
            }
            if (container.getState() != null && container.getState().getWaiting() != null) {
                String reason = container.getState().getWaiting().getReason();
                if (reason != null && !"ContainerCreating".equals(reason) && !"PodInitializing".equals(reason)) {
                    String message = container.getState().getWaiting().getMessage();
                    return Optional.of(new PodProblem(reason, "pod " + name + ": container " + container.getName() + " waits: " + reason
                            + (message == null ? "" : " (" + message + ")"), false));
                }
            }
        }
        for (PodCondition condition : status.getConditions()) {
            if ("PodScheduled".equals(condition.getType()) && "False".equals(condition.getStatus())) {
                String reason = condition.getReason() == null ? "Unschedulable" : condition.getReason();
                return Optional.of(new PodProblem(reason, "pod " + name + " cannot be scheduled: "
                        + (condition.getMessage() == null ? reason : condition.getMessage()), false));
            }
        }
        return Optional.empty();
    }

    /** Whether the pod's Ready condition is True. */
    public static boolean isReady(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static Optional<String> terminatedDetail(Pod pod) {
        return pod.getStatus().getContainerStatuses().stream()
                .filter(c -> c.getState() != null && c.getState().getTerminated() != null)
                .map(c -> {
                    var terminated = c.getState().getTerminated();
                    return "exit code " + terminated.getExitCode()
                            + (terminated.getReason() == null ? "" : " (" + terminated.getReason() + ")")
                            + (terminated.getMessage() == null || terminated.getMessage().isBlank() ? "" : ", " + terminated.getMessage().strip());
                })
                .findFirst();
    }
}
