package dev.pacer.agent.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A server's key and certificate in PEM: a pair makes its key store; anything else is refused, naming the files. */
class PemTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"EC", "RSA", "Ed25519"})
    void aKeyAndTheCertificateIssuedForItMakeTheServersKeyStore(String algorithm) throws Exception {
        KeyPair keys = keys(algorithm);
        X509Certificate certificate = selfSigned(keys);

        KeyStore store = Pem.keyStore(pem("CERTIFICATE", certificate.getEncoded()), pem("PRIVATE KEY", keys.getPrivate().getEncoded()),
                "tls.crt", "tls.key");

        assertThat(store.getKey("server", Pem.password().toCharArray())).isEqualTo(keys.getPrivate());
        assertThat(store.getCertificateChain("server")).containsExactly(certificate);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"EC", "RSA", "Ed25519"})
    void aKeyOfTheSameAlgorithmThatTheCertificateDoesNotCertifyIsRefusedNamingBothFiles(String algorithm) throws Exception {
        X509Certificate certificate = selfSigned(keys(algorithm));
        KeyPair other = keys(algorithm);

        assertThatThrownBy(() -> Pem.keyStore(pem("CERTIFICATE", certificate.getEncoded()), pem("PRIVATE KEY", other.getPrivate().getEncoded()),
                "/certs/tls.crt", "/certs/tls.key"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("/certs/tls.key is not the key /certs/tls.crt certifies")
                .hasMessageContaining("CN=pacer test")
                .hasMessageContaining("a certificate issued for this key");
    }

    @Test
    void anRsaKeyOfAnotherLengthIsRefusedAsNotThePair() throws Exception {
        X509Certificate certificate = selfSigned(keys("RSA"));
        KeyPairGenerator longer = KeyPairGenerator.getInstance("RSA");
        longer.initialize(3072);
        KeyPair other = longer.generateKeyPair();

        assertThatThrownBy(() -> Pem.keyStore(pem("CERTIFICATE", certificate.getEncoded()), pem("PRIVATE KEY", other.getPrivate().getEncoded()),
                "tls.crt", "tls.key"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tls.key is not the key tls.crt certifies");
    }

    @ParameterizedTest(name = "{0} key, {1} certificate")
    @CsvSource({"EC, RSA", "RSA, EC"})
    void aKeyOfAnotherAlgorithmIsRefused(String keyAlgorithm, String certificateAlgorithm) throws Exception {
        X509Certificate certificate = selfSigned(keys(certificateAlgorithm));
        KeyPair other = keys(keyAlgorithm);

        assertThatThrownBy(() -> Pem.keyStore(pem("CERTIFICATE", certificate.getEncoded()), pem("PRIVATE KEY", other.getPrivate().getEncoded()),
                "tls.crt", "tls.key"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls.key is an " + keyAlgorithm + " key, but tls.crt certifies an " + certificateAlgorithm + " key: they are not a pair");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"RSA PRIVATE KEY", "EC PRIVATE KEY"})
    void aKeyInAnotherFormatThanPkcs8IsRefusedWithTheConversion(String type) {
        assertThatThrownBy(() -> Pem.privateKey(pem(type, new byte[] {1, 2, 3}), "tls.key"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls.key holds a " + type + ", not an unencrypted PKCS#8 key: convert it with 'openssl pkcs8 -topk8 -nocrypt -in tls.key'");
    }

    private static KeyPair keys(String algorithm) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
        if (algorithm.equals("RSA")) {
            generator.initialize(2048);
        }
        return generator.generateKeyPair();
    }

    private static X509Certificate selfSigned(KeyPair keys) throws Exception {
        X500Name name = new X500Name("CN=pacer test");
        Instant now = Instant.now();
        String signature = switch (keys.getPrivate().getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> "Ed25519";   // the JDK names the key EdDSA
        };
        var builder = new JcaX509v3CertificateBuilder(name, BigInteger.ONE, Date.from(now.minus(Duration.ofMinutes(1))),
                Date.from(now.plus(Duration.ofHours(1))), name, keys.getPublic());
        return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(signature).build(keys.getPrivate())));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
