package dev.pacer.e2e;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.api.reconciler.dependent.managed.ManagedWorkflowAndDependentResourceContext;
import io.javaoperatorsdk.operator.processing.event.EventSourceRetriever;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * What a reconciler reads from JOSDK, read straight from a real API server instead of the informers' caches: the
 * client, the primary resources of the namespace, and the secondary resources the primary owns (what the reconciler's
 * informer would hold). Lets a test call {@code reconcile} itself, one step at a time, with its own clock. The rest of
 * JOSDK's context is not used by pacer's reconcilers, and refuses.
 */
final class ApiServerContext<P extends HasMetadata> implements Context<P> {
    private final KubernetesClient client;
    private final P primary;

    ApiServerContext(KubernetesClient client, P primary) {
        this.client = client;
        this.primary = primary;
    }

    @Override
    public KubernetesClient getClient() {
        return client;
    }

    @Override
    public P getPrimaryResource() {
        return primary;
    }

    /** The resources of this kind in the primary's namespace whose controlling owner is the primary. */
    @Override
    @SuppressWarnings("unchecked")
    public <R> Set<R> getSecondaryResources(Class<R> kind) {
        return client.resources((Class<? extends HasMetadata>) kind).inNamespace(primary.getMetadata().getNamespace()).list().getItems().stream()
                .filter(r -> r.getMetadata().getOwnerReferences().stream().anyMatch(o -> o.getUid().equals(primary.getMetadata().getUid())))
                .map(r -> (R) r)
                .collect(Collectors.toSet());
    }

    @Override
    public <R> Optional<R> getSecondaryResource(Class<R> kind, String eventSourceName) {
        return getSecondaryResources(kind).stream().findFirst();
    }

    @Override
    @SuppressWarnings("unchecked")
    public IndexedResourceCache<P> getPrimaryCache() {
        Class<P> kind = (Class<P>) primary.getClass();
        String namespace = primary.getMetadata().getNamespace();
        return new IndexedResourceCache<>() {
            @Override
            public Optional<P> get(ResourceID id) {
                return Optional.ofNullable(client.resources(kind).inNamespace(id.getNamespace().orElse(namespace)).withName(id.getName()).get());
            }

            @Override
            public Stream<ResourceID> keys() {
                return list(r -> true).map(ResourceID::fromResource);
            }

            @Override
            public Stream<P> list(Predicate<P> predicate) {
                return client.resources(kind).inNamespace(namespace).list().getItems().stream().filter(predicate);
            }

            @Override
            public Stream<P> list(String inNamespace, Predicate<P> predicate) {
                return client.resources(kind).inNamespace(inNamespace).list().getItems().stream().filter(predicate);
            }

            @Override
            public List<P> byIndex(String indexName, String indexKey) {
                throw new UnsupportedOperationException("no index in a test's context");
            }
        };
    }

    @Override
    public Optional<RetryInfo> getRetryInfo() {
        return Optional.empty();
    }

    @Override
    public boolean isNextReconciliationImminent() {
        return false;
    }

    @Override
    public boolean isPrimaryResourceDeleted() {
        return false;
    }

    @Override
    public boolean isPrimaryResourceFinalStateUnknown() {
        return false;
    }

    @Override
    public ControllerConfiguration<P> getControllerConfiguration() {
        throw new UnsupportedOperationException("pacer's reconcilers do not read their configuration");
    }

    @Override
    public ManagedWorkflowAndDependentResourceContext managedWorkflowAndDependentResourceContext() {
        throw new UnsupportedOperationException("pacer's reconcilers have no managed dependents");
    }

    @Override
    public EventSourceRetriever<P> eventSourceRetriever() {
        throw new UnsupportedOperationException("pacer's reconcilers do not look up event sources");
    }

    @Override
    public ExecutorService getWorkflowExecutorService() {
        throw new UnsupportedOperationException("pacer's reconcilers have no workflow");
    }
}
