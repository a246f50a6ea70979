package dev.pacer.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;

/**
 * What the operator's informer caches keep of each object: everything but its {@code managedFields}. The operator never
 * reads them, and a pod's (one entry per writer: the operator, the scheduler, the kubelet) parse into thousands of small
 * maps: most of the heap with 100 runs and their pods cached (docs/benchmarks.md, "The operator under load").
 */
public final class CachePruning {
    private CachePruning() {
    }

    public static <R extends HasMetadata> TransformingItemStore<R> withoutManagedFields() {
        return new TransformingItemStore<>(CachePruning::pruned);
    }

    static <R extends HasMetadata> R pruned(R resource) {
        if (resource.getMetadata() != null) {
            resource.getMetadata().setManagedFields(null);
        }
        return resource;
    }
}
