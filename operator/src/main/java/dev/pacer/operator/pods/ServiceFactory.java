package dev.pacer.operator.pods;

import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.engine.plan.RunPlan;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/**
 * The desired Service of a run's server: headless, so its DNS name resolves straight to the pod IP. It names the
 * server for people and tools (and Prometheus service discovery); the clients themselves are given the pod IP, so
 * neither kube-proxy nor DNS sits in the measured path.
 */
public final class ServiceFactory {
    private ServiceFactory() {
    }

    public static String serviceName(BenchmarkRun run) {
        return PodFactory.serverPodName(run);
    }

    public static Service serverService(BenchmarkRun run, RunPlan plan) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(serviceName(run))
                .withNamespace(run.getMetadata().getNamespace())
                .withLabels(PodFactory.labels(run, PodFactory.ROLE_SERVER, null))
                .withOwnerReferences(PodFactory.ownerReference(run))
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withSelector(Map.of(PodFactory.LABEL_RUN, run.getMetadata().getName(), PodFactory.LABEL_ROLE, PodFactory.ROLE_SERVER))
                .addNewPort().withName("http").withPort(plan.server().port()).withNewTargetPort("http").endPort()
                .addNewPort().withName("admin").withPort(PodFactory.ADMIN_PORT).withNewTargetPort("admin").endPort()
                .withPublishNotReadyAddresses(true)
                .endSpec()
                .build();
    }
}
