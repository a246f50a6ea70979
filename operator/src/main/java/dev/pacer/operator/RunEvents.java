package dev.pacer.operator;

import java.time.Instant;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes events on a BenchmarkRun or a BenchmarkSchedule ({@code kubectl describe br} and {@code kubectl get events} show them), emitted
 * at transitions only. Losing one is not worth failing a reconcile: errors are logged.
 */
public final class RunEvents {
    public static final String COMPONENT = "pacer-operator";
    private static final Logger LOG = LoggerFactory.getLogger(RunEvents.class);

    private final KubernetesClient client;

    public RunEvents(KubernetesClient client) {
        this.client = client;
    }

    public void normal(HasMetadata run, String reason, String message) {
        emit(run, "Normal", reason, message);
    }

    public void warning(HasMetadata run, String reason, String message) {
        emit(run, "Warning", reason, message);
    }

    private void emit(HasMetadata run, String type, String reason, String message) {
        String now = Instant.now().toString();
        try {
            client.v1().events().inNamespace(run.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(run.getMetadata().getName() + ".").withNamespace(run.getMetadata().getNamespace()).endMetadata()
                    .withNewInvolvedObject().withApiVersion(HasMetadata.getApiVersion(run.getClass())).withKind(HasMetadata.getKind(run.getClass()))
                    .withName(run.getMetadata().getName()).withNamespace(run.getMetadata().getNamespace())
                    .withUid(run.getMetadata().getUid()).withResourceVersion(run.getMetadata().getResourceVersion()).endInvolvedObject()
                    .withType(type).withReason(reason).withMessage(truncate(message))
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent(COMPONENT).endSource()
                    .withReportingComponent(COMPONENT).withReportingInstance(COMPONENT)
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("could not record event {} on {}/{}: {}", reason, run.getMetadata().getNamespace(), run.getMetadata().getName(), e.getMessage());
        }
    }

    private static String truncate(String message) {
        return message.length() <= 1000 ? message : message.substring(0, 997) + "...";
    }
}
