package dev.pacer.operator.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import org.junit.jupiter.api.Test;

/** The generated CRDs against copies with fields taken out, as an installation from an older chart has them. */
class CrdCheckTest {
    static CustomResourceDefinition runs() {
        return CrdCheck.bundled(CrdCheck.CRDS.get("benchmarkruns.pacer.dev"));
    }

    static JSONSchemaProps status(CustomResourceDefinition crd) {
        return crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema().getProperties().get("status");
    }

    @Test
    void theCrdThisOperatorWasBuiltWithLacksNothing() {
        assertThat(CrdCheck.missingFields(runs(), runs())).isEmpty();
        CustomResourceDefinition suites = CrdCheck.bundled(CrdCheck.CRDS.get("benchmarksuites.pacer.dev"));
        assertThat(CrdCheck.missingFields(suites, suites)).isEmpty();
    }

    @Test
    void anOlderCrdIsFoundOutNamingTheShallowestFieldsItLacks() {
        CustomResourceDefinition older = runs();
        status(older).getProperties().remove("artifacts");
        JSONSchemaProps footprint = status(older).getProperties().get("result").getProperties().get("server").getProperties().get("footprint");
        footprint.getProperties().remove("imageBytes");
        assertThat(CrdCheck.missingFields(runs(), older))
                .containsExactly("status.artifacts", "status.result.server.footprint.imageBytes");
    }

    @Test
    void fieldsInsideListsAndAnUnknownVersionCountToo() {
        CustomResourceDefinition older = runs();
        JSONSchemaProps pod = status(older).getProperties().get("pods").getItems().getSchema();
        pod.getProperties().remove("imageId");
        assertThat(CrdCheck.missingFields(runs(), older)).containsExactly("status.pods[].imageId");
        older.getSpec().getVersions().getFirst().setName("v1alpha0");
        assertThat(CrdCheck.missingFields(runs(), older)).containsExactly("version v1alpha1");
    }
}
