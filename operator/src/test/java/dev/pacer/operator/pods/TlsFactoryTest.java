package dev.pacer.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.RunTemplate;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.engine.plan.RunPlanner;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import org.junit.jupiter.api.Test;

/** An https run's pods and Secret: the server holds the key, the clients only the certificate they trust. */
class TlsFactoryTest {
    static BenchmarkRun https() throws IOException {
        BenchmarkRun run = PodFactoryTest.run();
        run.getSpec().request.scheme = "https";
        run.getSpec().clients.httpVersion = "h2";
        return run;
    }

    static Volume tlsVolume(Pod pod) {
        return pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(TlsFactory.VOLUME)).findFirst().orElseThrow();
    }

    @Test
    void theServerMountsCertificateAndKeyAndTheClientsTheCertificateAloneCheckedAgainstTheServicesName() throws Exception {
        BenchmarkRun run = https();
        RunPlan plan = TlsFactory.clientTrust(run, RunPlanner.plan(run));
        Pod server = PodFactory.serverPod(run, plan);
        Container container = server.getSpec().getContainers().getFirst();
        assertThat(container.getArgs()).contains("--tls-cert=/etc/pacer/tls/tls.crt", "--tls-key=/etc/pacer/tls/tls.key",
                "--tls-protocols=TLSv1.3,TLSv1.2");
        assertThat(container.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/etc/pacer/tls");
            assertThat(m.getReadOnly()).isTrue();
        });
        assertThat(tlsVolume(server).getSecret().getSecretName()).isEqualTo(run.getMetadata().getName() + "-tls-6f1c2a9e");
        assertThat(tlsVolume(server).getSecret().getItems()).extracting(KeyToPath::getKey).containsExactly("tls.crt", "tls.key");
        assertThat(tlsVolume(server).getSecret().getDefaultMode()).as("0440").isEqualTo(0440);
        assertThat(server.getSpec().getSecurityContext().getFsGroup()).isEqualTo(PodFactory.NON_ROOT_UID);
        Pod client = PodFactory.clientPod(run, plan, plan.clients().getFirst());
        assertThat(tlsVolume(client).getSecret().getItems()).extracting(KeyToPath::getKey).containsExactly("tls.crt");
        assertThat(client.getSpec().getContainers().getFirst().getSecurityContext().getReadOnlyRootFilesystem()).isTrue();

        String serverName = run.getMetadata().getName() + "-server." + run.getMetadata().getNamespace() + ".svc";
        assertThat(plan.runRequest(plan.clients().getFirst(), "https://10.0.0.5:8080", 0).tls())
                .satisfies(tls -> {
                    assertThat(tls.serverName()).isEqualTo(serverName);
                    assertThat(tls.trustedCertificatesFile()).isEqualTo("/etc/pacer/tls/tls.crt");
                    assertThat(tls.trustedCertificatesPem()).isNull();
                });
    }

    @Test
    void aCertificateMadeForTheRunNamesItsServiceOutlivesItsTimeoutAndIsOwnedByIt() throws Exception {
        BenchmarkRun run = https();
        RunPlan plan = TlsFactory.clientTrust(run, RunPlanner.plan(run));
        Instant now = Instant.parse("2026-11-26T12:00:00Z");
        Secret secret = TlsFactory.generatedSecret(run, plan, now);
        assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
        assertThat(secret.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(run.getMetadata().getUid()));
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(
                new ByteArrayInputStream(secret.getStringData().get("tls.crt").getBytes(StandardCharsets.US_ASCII)));
        assertThat(certificate.getSubjectAlternativeNames().stream().map(name -> String.valueOf(name.get(1))).toList())
                .contains(TlsFactory.serverName(run));
        assertThat(certificate.getNotAfter().toInstant()).isAfter(now.plus(plan.timeout()));
        assertThat(secret.getStringData().get("tls.key")).startsWith("-----BEGIN PRIVATE KEY-----");
    }

    @Test
    void aRunAppliedAgainUnderItsNameGetsASecretOfItsOwnNotTheDeletedRunsLeftover() throws Exception {
        BenchmarkRun first = https();
        BenchmarkRun again = https();
        again.getMetadata().setUid("0b9d4e27-0000-4000-8000-000000000002");
        String firstSecret = TlsFactory.generatedSecret(first, TlsFactory.clientTrust(first, RunPlanner.plan(first)), Instant.now())
                .getMetadata().getName();
        RunPlan plan = TlsFactory.clientTrust(again, RunPlanner.plan(again));
        Secret secret = TlsFactory.generatedSecret(again, plan, Instant.now());

        assertThat(secret.getMetadata().getName()).isEqualTo("jetty12-core-tls-0b9d4e27").isNotEqualTo(firstSecret);
        assertThat(tlsVolume(PodFactory.serverPod(again, plan)).getSecret().getSecretName()).isEqualTo(secret.getMetadata().getName());
        assertThat(tlsVolume(PodFactory.clientPod(again, plan, plan.clients().getFirst())).getSecret().getSecretName())
                .isEqualTo(secret.getMetadata().getName());
    }

    @Test
    void theUsersSecretIsMountedAsItIsAndALocalDirectoryIsRefusedNamingTheField() throws Exception {
        BenchmarkRun run = https();
        run.getSpec().tls = new RunTemplate.Tls();
        run.getSpec().tls.certificate = new RunTemplate.TlsCertificate();
        run.getSpec().tls.certificate.secretName = "bench-cert";
        RunPlan plan = TlsFactory.clientTrust(run, RunPlanner.plan(run));
        assertThat(tlsVolume(PodFactory.serverPod(run, plan)).getSecret().getSecretName()).isEqualTo("bench-cert");

        run.getSpec().tls.certificate = new RunTemplate.TlsCertificate();
        run.getSpec().tls.certificate.directory = "certs";
        assertThatThrownBy(() -> TlsFactory.clientTrust(run, RunPlanner.plan(run)))
                .isInstanceOf(RunPlanner.InvalidPlanException.class).hasMessageStartingWith("spec.tls.certificate.directory: names a local directory");
        assertThat(List.of(plan.scheme())).containsExactly("https");
    }
}
