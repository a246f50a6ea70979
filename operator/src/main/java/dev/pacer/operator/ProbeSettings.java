package dev.pacer.operator;

import java.util.List;

/**
 * The kernel probe on Kubernetes (docs/probe.md): one pod per run measured with {@code measure: probe/both}, on the
 * server's node, in the operator's namespace, the only pod of pacer's with privileges (CAP_BPF, CAP_PERFMON).
 *
 * @param image     the probe's image
 * @param namespace where probe pods run: the operator's namespace, which must admit the {@code privileged} Pod
 *                  Security level; the runs' own namespaces stay {@code restricted}
 * @param imagePullSecrets secrets in that namespace to pull the probe's image with (the chart's own); never the run's,
 *                  which name secrets of the run's namespace
 */
public record ProbeSettings(String image, String namespace, List<String> imagePullSecrets) {
    public ProbeSettings {
        imagePullSecrets = List.copyOf(imagePullSecrets);
    }

    public ProbeSettings(String image, String namespace) {
        this(image, namespace, List.of());
    }
}
