package dev.pacer.operator.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/** Which refusals of the API server a run waits out, and which fail it (the messages as the API server words them). */
class PodEffectsTest {
    static KubernetesClientException refused(int code, String message) {
        Status status = new StatusBuilder().withCode(code).withMessage(message).build();
        return new KubernetesClientException(status);
    }

    @Test
    void aNamespaceWithoutItsServiceAccountYetAndThrottlingPass() {
        assertThat(PodEffects.passing(refused(403, "pods \"run-server\" is forbidden: error looking up service account bench/default: "
                + "serviceaccount \"default\" not found"))).isTrue();
        assertThat(PodEffects.passing(refused(429, "Too many requests, please try again later."))).isTrue();
    }

    @Test
    void thePodsOwnFaultsDoNot() {
        assertThat(PodEffects.passing(refused(403, "pods \"run-server\" is forbidden: violates PodSecurity \"restricted:latest\": "
                + "allowPrivilegeEscalation != false"))).isFalse();
        assertThat(PodEffects.passing(refused(403, "pods \"run-server\" is forbidden: exceeded quota: compute, requested: cpu=4"))).isFalse();
        assertThat(PodEffects.passing(refused(422, "Pod \"run-server\" is invalid: spec.containers[0].resources.requests: Invalid value"))).isFalse();
    }
}
