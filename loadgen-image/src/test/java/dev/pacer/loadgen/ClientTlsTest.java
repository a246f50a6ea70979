package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateExpiredException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;

import dev.pacer.contract.RunRequest;
import dev.pacer.engine.tls.RunCertificate;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's TLS set-up alone, without a connection: what it trusts, offers and resumes, where it connects, how it times handshakes and explains failures. */
class ClientTlsTest {
    private static final Instant NOW = Instant.now();
    private static final RunCertificate LOCAL = RunCertificate.selfSigned(List.of("127.0.0.1", "localhost"), NOW.minusSeconds(60), NOW.plus(Duration.ofDays(1)));

    static RunRequest.Tls tls(String pem, boolean resumption) {
        return new RunRequest.Tls(List.of("TLSv1.3"), resumption, 0, pem);
    }

    @Test
    void itTrustsTheRunsCertificateAloneOffersTheRunsVersionsAndChecksTheHostName() throws Exception {
        ClientTls.Factory factory = ClientTls.contextFactory(tls(LOCAL.certificatePem(), true));
        factory.start();
        try {
            KeyStore trusted = factory.getTrustStore();
            assertThat(Collections.list(trusted.aliases())).hasSize(1);
            assertThat(trusted.getCertificate(trusted.aliases().nextElement())).isEqualTo(LOCAL.certificate());
            assertThat(factory.getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
            SSLEngine engine = factory.newSSLEngine("127.0.0.1", 8443);
            assertThat(engine.getEnabledProtocols()).containsExactly("TLSv1.3");
        } finally {
            factory.stop();
        }
    }

    @Test
    void theCertificateToTrustMayComeFromAFileAndAMissingOneSaysWhich(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("ca.crt"), LOCAL.certificatePem(), StandardCharsets.US_ASCII);
        RunRequest.Tls fromFile = new RunRequest.Tls(List.of("TLSv1.3"), true, 0, null, file.toString(), null);
        KeyStore trusted = ClientTls.trusted(fromFile);
        assertThat(trusted.getCertificate(trusted.aliases().nextElement())).isEqualTo(LOCAL.certificate());

        RunRequest.Tls missing = new RunRequest.Tls(List.of("TLSv1.3"), true, 0, null, dir.resolve("none.crt").toString(), null);
        assertThatThrownBy(() -> ClientTls.trusted(missing)).hasMessageStartingWith("cannot read the certificate to trust, " + dir.resolve("none.crt"));
    }

    @Test
    void withAServerNameTheClientConnectsToTheTargetsAddressUnderThatName() {
        InetSocketAddress plain = ClientTls.address("127.0.0.1", 8443, tls(LOCAL.certificatePem(), true));
        assertThat(plain.getHostString()).isEqualTo("127.0.0.1");
        RunRequest.Tls named = new RunRequest.Tls(List.of("TLSv1.3"), true, 0, LOCAL.certificatePem(), null, "server.example");
        InetSocketAddress address = ClientTls.address("127.0.0.1", 8443, named);
        assertThat(address.getHostString()).as("the name the certificate must hold, and SNI").isEqualTo("server.example");
        assertThat(address.getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(address.getPort()).isEqualTo(8443);
    }

    @Test
    void withoutResumptionEveryEngineIsKeyedApartSoNoSessionIsFound() throws Exception {
        ClientTls.Factory resuming = ClientTls.contextFactory(tls(LOCAL.certificatePem(), true));
        ClientTls.Factory fresh = ClientTls.contextFactory(tls(LOCAL.certificatePem(), false));
        resuming.start();
        fresh.start();
        try {
            assertThat(resuming.newSSLEngine("127.0.0.1", 8443).getPeerPort()).isEqualTo(8443);
            assertThat(resuming.newSSLEngine("127.0.0.1", 8443).getPeerPort()).isEqualTo(8443);
            SSLEngine first = fresh.newSSLEngine("127.0.0.1", 8443);
            SSLEngine second = fresh.newSSLEngine("127.0.0.1", 8443);
            assertThat(first.getPeerPort()).isGreaterThan(65_535).isNotEqualTo(second.getPeerPort());
            assertThat(first.getPeerHost()).as("the host, for the certificate check and SNI, stays the server's").isEqualTo("127.0.0.1");
        } finally {
            resuming.stop();
            fresh.stop();
        }
    }

    @Test
    void eachHandshakeIsTimedOnceFromItsEngineAndAFailedOneIsNot() throws Exception {
        ClientTls.Factory factory = ClientTls.contextFactory(tls(LOCAL.certificatePem(), true));
        factory.start();
        try {
            List<Long> told = new ArrayList<>();
            SslHandshakeListener timer = factory.handshakeTimer(told::add);
            SSLEngine succeeded = factory.newSSLEngine("127.0.0.1", 8443);
            SSLEngine failed = factory.newSSLEngine("127.0.0.1", 8443);
            timer.handshakeSucceeded(new SslHandshakeListener.Event(succeeded));
            timer.handshakeSucceeded(new SslHandshakeListener.Event(succeeded));   // a second connection's listener sees it too
            timer.handshakeFailed(new SslHandshakeListener.Event(failed), new SSLHandshakeException("refused"));
            timer.handshakeSucceeded(new SslHandshakeListener.Event(failed));
            assertThat(told).hasSize(1).allMatch(nanos -> nanos >= 0);
        } finally {
            factory.stop();
        }
    }

    @Test
    void aFailureIsExplainedInTheTermsOfTheSpecAndOneThatIsNotTlssIsLeftAlone() {
        RunCertificate expired = RunCertificate.selfSigned(List.of("127.0.0.1"), NOW.minus(Duration.ofDays(2)), NOW.minus(Duration.ofDays(1)));
        CertificateExpiredException expiry = null;
        try {
            expired.certificate().checkValidity();
        } catch (CertificateExpiredException e) {
            expiry = e;
        } catch (java.security.cert.CertificateNotYetValidException e) {
            throw new AssertionError(e);
        }
        assertThat(expiry).as("the JDK's own check of an expired certificate").isNotNull();
        SSLHandshakeException handshake = new SSLHandshakeException("PKIX path validation failed");
        handshake.initCause(expiry);
        assertThat(ClientTls.explain(new ExecutionException(handshake), "https://127.0.0.1:8443"))
                .startsWith("the server's certificate has expired").endsWith("give the run a valid certificate (spec.tls.certificate)");
        assertThat(ClientTls.explain(new SSLHandshakeException("Received fatal alert: handshake_failure"), "https://127.0.0.1:8443"))
                .isEqualTo("the TLS handshake with https://127.0.0.1:8443 failed: SSLHandshakeException: Received fatal alert: handshake_failure");
        assertThat(ClientTls.explain(new ConnectException("Connection refused"), "https://127.0.0.1:8443")).isNull();
        assertThat(ClientTls.explain(new IOException("reset"), "https://127.0.0.1:8443")).isNull();
    }
}
