package dev.pacer.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class CachePruningTest {
    @Test
    void keepsEverythingButManagedFieldsAndFindsTheObjectByItsKey() {
        Pod pod = new PodBuilder().withNewMetadata().withNamespace("bench").withName("run-server").withResourceVersion("42")
                .addToLabels("pacer.dev/run", "run").withManagedFields(List.of(new ManagedFieldsEntryBuilder().withManager("kubelet")
                        .withOperation("Update").build())).endMetadata()
                .withNewSpec().withNodeName("node-1").endSpec().withNewStatus().withPodIP("10.0.0.7").endStatus().build();
        var store = CachePruning.<Pod>withoutManagedFields();
        store.put(store.getKey(pod), pod);
        Pod cached = store.get("bench/run-server");
        assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(cached.getMetadata().getLabels()).containsEntry("pacer.dev/run", "run");
        assertThat(cached.getSpec().getNodeName()).isEqualTo("node-1");
        assertThat(cached.getStatus().getPodIP()).isEqualTo("10.0.0.7");
    }
}
