package dev.pacer.operator.pods;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.FieldProblem;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.engine.tls.RunCertificate;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/**
 * TLS of an https run on Kubernetes, without I/O. The server's certificate and key come from a {@code kubernetes.io/tls}
 * Secret, the user's ({@code spec.tls.certificate.secretName}) or one the operator makes for the run ({@code <run>-tls-<uid prefix>},
 * owned by the run, deleted with it). The server pod mounts its {@code tls.crt} and {@code tls.key}; the client pods
 * mount {@code tls.crt} alone, the certificates they trust: the operator never reads a Secret. The clients connect to
 * the server pod's address and check the certificate against the name of the run's server Service,
 * {@code <run>-server.<namespace>.svc}, which a certificate made for the run holds.
 */
public final class TlsFactory {
    public static final String VOLUME = "pacer-tls";
    public static final String MOUNT_PATH = "/etc/pacer/tls";
    public static final String CERTIFICATE = "tls.crt";
    public static final String KEY = "tls.key";
    /** A made certificate outlives its run by this much (the run's timeout bounds the run). */
    static final Duration VALIDITY_MARGIN = Duration.ofHours(1);
    /** 0440: owner (root) and group (the pods' fsGroup) may read. */
    static final int KEY_FILE_MODE = 0440;

    private TlsFactory() {
    }

    /** The plan with what the clients trust and the name they check, or the problem of a local-only field. */
    public static RunPlan clientTrust(BenchmarkRun run, RunPlan plan) {
        if (plan.tls() == null) {
            return plan;
        }
        if (plan.tls().directory() != null) {
            throw new RunPlanner.InvalidPlanException(List.of(new FieldProblem("spec.tls.certificate.directory", "names a local directory: "
                    + "on Kubernetes give spec.tls.certificate.secretName (a kubernetes.io/tls Secret in the run's namespace), or leave "
                    + "spec.tls.certificate unset to have a certificate made for the run")));
        }
        return plan.withClientTrust(null, MOUNT_PATH + "/" + CERTIFICATE, serverName(run));
    }

    /** The server Service's name in the cluster's DNS: what the clients check the certificate against. */
    public static String serverName(BenchmarkRun run) {
        return ServiceFactory.serviceName(run) + "." + run.getMetadata().getNamespace() + ".svc";
    }

    /**
     * The user's Secret, or the run's own: {@code <run>-tls-<the first 8 characters of the run's uid>}. A run deleted and
     * applied again under its name gets a Secret of its own, so the one it finds already there (409) is always its own
     * from an earlier reconcile, never the previous run's, which the garbage collector deletes with that run.
     */
    public static String secretName(BenchmarkRun run, RunPlan plan) {
        if (plan.tls().secretName() != null) {
            return plan.tls().secretName();
        }
        String uid = run.getMetadata().getUid();
        if (uid == null || uid.length() < 8) {
            throw new IllegalStateException("run " + run.getMetadata().getName() + " has no uid yet: its Secret is named after it");
        }
        return run.getMetadata().getName() + "-tls-" + uid.substring(0, 8);
    }

    /** The Secret of a certificate made for the run: for its Service's names, valid through the run's timeout. */
    public static Secret generatedSecret(BenchmarkRun run, RunPlan plan, Instant now) {
        String service = ServiceFactory.serviceName(run);
        String namespace = run.getMetadata().getNamespace();
        RunCertificate certificate = RunCertificate.selfSigned(List.of(serverName(run), service, service + "." + namespace,
                        serverName(run) + ".cluster.local"),
                now.minus(Duration.ofMinutes(5)), now.plus(plan.timeout()).plus(VALIDITY_MARGIN));
        return new SecretBuilder()
                .withNewMetadata()
                .withName(secretName(run, plan))
                .withNamespace(namespace)
                .withLabels(PodFactory.labels(run, PodFactory.ROLE_SERVER, null))
                .withOwnerReferences(PodFactory.ownerReference(run))
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withStringData(Map.of(CERTIFICATE, certificate.certificatePem(), KEY, certificate.keyPem()))
                .build();
    }

    /** The server mounts the certificate and its key; a client, the certificate alone. */
    static Volume volume(BenchmarkRun run, RunPlan plan, boolean server) {
        List<KeyToPath> items = server
                ? List.of(new KeyToPath(CERTIFICATE, null, CERTIFICATE), new KeyToPath(KEY, null, KEY))
                : List.of(new KeyToPath(CERTIFICATE, null, CERTIFICATE));
        // the key readable by the pods' group alone (fsGroup 65532), not by any user of the container
        return new VolumeBuilder().withName(VOLUME).withNewSecret().withSecretName(secretName(run, plan)).withItems(items)
                .withDefaultMode(server ? KEY_FILE_MODE : null).endSecret().build();
    }

    static VolumeMount mount() {
        return new VolumeMountBuilder().withName(VOLUME).withMountPath(MOUNT_PATH).withReadOnly(true).build();
    }
}
