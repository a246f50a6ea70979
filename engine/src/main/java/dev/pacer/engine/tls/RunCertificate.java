package dev.pacer.engine.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate and its key in PEM, made for one https run (Bouncy Castle): an ECDSA P-256 key, as fast a handshake as
 * TLS offers, so that the run measures the server rather than an unusual key. The same files as a Kubernetes TLS Secret
 * ({@code tls.crt}, {@code tls.key}); the clients trust {@code certificatePem} for that run alone.
 *
 * @param certificatePem the certificate, PEM
 * @param keyPem         its private key, PKCS#8 PEM (secret: never logged, written only where the server reads it)
 * @param certificate    the certificate
 * @param keyPair        its keys, to issue others with ({@link #issue})
 */
public record RunCertificate(String certificatePem, String keyPem, X509Certificate certificate, KeyPair keyPair) {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A server certificate for these hosts (names or IP addresses), signed by its own key: the clients trust it as it is. */
    public static RunCertificate selfSigned(List<String> hosts, Instant notBefore, Instant notAfter) {
        KeyPair keys = newKeys();
        return build("pacer run server", hosts, notBefore, notAfter, keys, keys, null, false);
    }

    /** An authority that issues server certificates ({@link #issue}); the clients then trust it, not each certificate. */
    public static RunCertificate authority(String name, Instant notBefore, Instant notAfter) {
        KeyPair keys = newKeys();
        return build(name, List.of(), notBefore, notAfter, keys, keys, null, true);
    }

    /** A server certificate for these hosts issued by this authority. */
    public RunCertificate issue(List<String> hosts, Instant notBefore, Instant notAfter) {
        return build("pacer run server", hosts, notBefore, notAfter, newKeys(), keyPair, certificate, false);
    }

    private static RunCertificate build(String commonName, List<String> hosts, Instant notBefore, Instant notAfter, KeyPair subject,
                                        KeyPair issuerKeys, X509Certificate issuer, boolean authority) {
        try {
            X500Name subjectName = new X500Name("CN=" + commonName);
            X500Name issuerName = issuer == null ? subjectName : X500Name.getInstance(issuer.getSubjectX500Principal().getEncoded());
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuerName, new BigInteger(64, RANDOM).abs().add(BigInteger.ONE),
                    Date.from(notBefore), Date.from(notAfter), subjectName, subject.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
            if (authority) {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
                builder.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(hosts.stream().map(RunCertificate::generalName).toArray(GeneralName[]::new)));
            }
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
            return new RunCertificate(pem(certificate), pem(new JcaPKCS8Generator(subject.getPrivate(), null)), certificate, subject);
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make the run's certificate: " + e.getMessage(), e);
        }
    }

    private static GeneralName generalName(String host) {
        boolean address = host.matches("[0-9.]+") || host.contains(":");
        return new GeneralName(address ? GeneralName.iPAddress : GeneralName.dNSName, host);
    }

    private static KeyPair newKeys() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make EC keys: " + e.getMessage(), e);
        }
    }

    private static String pem(Object object) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /** Never the key. */
    @Override
    public String toString() {
        return "RunCertificate[" + certificate.getSubjectX500Principal() + ", until " + certificate.getNotAfter().toInstant() + "]";
    }
}
