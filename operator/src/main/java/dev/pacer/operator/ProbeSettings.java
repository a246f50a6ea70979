package dev.pacer.operator;

/**
 * The kernel probe on Kubernetes (docs/probe.md): one pod per run measured with {@code measure: probe/both}, on the
 * server's node, in the operator's namespace, the only pod of pacer's with privileges (CAP_BPF, CAP_PERFMON).
 *
 * @param image     the probe's image
 * @param namespace where probe pods run: the operator's namespace, which must admit the {@code privileged} Pod
 *                  Security level; the runs' own namespaces stay {@code restricted}
 */
public record ProbeSettings(String image, String namespace) {
}
