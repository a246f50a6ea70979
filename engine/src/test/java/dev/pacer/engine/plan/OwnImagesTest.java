package dev.pacer.engine.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OwnImagesTest {
    final OwnImages installed = new OwnImages("registry.example.com:5000/team/pacer/");

    @Test
    void pacersOwnImagesWithoutARegistryComeFromTheInstallsRegistry() {
        assertThat(installed.resolve("pacer/server-jetty12:0.1.0")).isEqualTo("registry.example.com:5000/team/pacer/server-jetty12:0.1.0");
        assertThat(installed.resolve("pacer/server-jetty12-ee9:0.1.0")).isEqualTo("registry.example.com:5000/team/pacer/server-jetty12-ee9:0.1.0");
        assertThat(installed.resolve("pacer/loadgen@sha256:abc")).isEqualTo("registry.example.com:5000/team/pacer/loadgen@sha256:abc");
        assertThat(installed.resolve("pacer/server-loom")).isEqualTo("registry.example.com:5000/team/pacer/server-loom");
    }

    @Test
    void aFullReferenceOrAnotherImageIsUsedAsWritten() {
        assertThat(installed.resolve("other.example.com/pacer/server-jetty12:0.1.0")).isEqualTo("other.example.com/pacer/server-jetty12:0.1.0");
        assertThat(installed.resolve("nginx:1.27")).isEqualTo("nginx:1.27");
        assertThat(installed.resolve("pacer/someone-elses:1")).as("not an image pacer builds").isEqualTo("pacer/someone-elses:1");
        assertThat(installed.resolve(null)).isNull();
    }

    @Test
    void theDefaultRegistryLeavesEveryImageAsWritten() {
        assertThat(OwnImages.AS_WRITTEN.resolve("pacer/server-jetty12:0.1.0")).isEqualTo("pacer/server-jetty12:0.1.0");
        assertThat(new OwnImages("").registry()).isEqualTo("pacer");
    }
}
