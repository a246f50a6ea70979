package dev.pacer.agent.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and keys in PEM, as a Kubernetes TLS Secret holds them ({@code tls.crt}, {@code tls.key}), read into the
 * JDK's key stores. A key must be PKCS#8 ({@code BEGIN PRIVATE KEY}): RSA, EC or EdDSA.
 */
public final class Pem {
    private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final Pattern OTHER_KEY = Pattern.compile("-----BEGIN ((RSA|EC|ENCRYPTED) PRIVATE KEY)-----");
    /** Not secret: this process's own key store, never written anywhere. */
    private static final char[] IN_MEMORY_PASSWORD = "pacer".toCharArray();

    private Pem() {
    }

    /** Every certificate of a PEM text, in order (a server's chain: its own first). */
    public static List<X509Certificate> certificates(String pem, String source) {
        try {
            List<X509Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))).stream()
                    .map(X509Certificate.class::cast).toList();
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException(source + " holds no certificate (expected -----BEGIN CERTIFICATE-----)");
            }
            return certificates;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(source + " is not a PEM certificate: " + e.getMessage(), e);
        }
    }

    /** The PKCS#8 private key of a PEM text. */
    public static PrivateKey privateKey(String pem, String source) {
        Matcher matcher = PRIVATE_KEY.matcher(pem);
        if (!matcher.find()) {
            Matcher other = OTHER_KEY.matcher(pem);
            throw new IllegalArgumentException(source + (other.find()
                    ? " holds a " + other.group(1) + ", not an unencrypted PKCS#8 key: convert it with "
                            + "'openssl pkcs8 -topk8 -nocrypt -in " + source + "'"
                    : " holds no private key (expected -----BEGIN PRIVATE KEY-----)"));
        }
        byte[] der = Base64.getMimeDecoder().decode(matcher.group(1));
        for (String algorithm : List.of("EC", "RSA", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // another algorithm
            }
        }
        throw new IllegalArgumentException(source + " holds a key that is neither EC, RSA nor EdDSA");
    }

    /** A key store holding the key and its chain, under the alias {@code server}, with {@link #password()}. */
    public static KeyStore keyStore(String certificatePem, String keyPem, String certificateSource, String keySource) {
        List<X509Certificate> chain = certificates(certificatePem, certificateSource);
        PrivateKey key = privateKey(keyPem, keySource);
        PublicKey certified = chain.getFirst().getPublicKey();
        if (!certified.getAlgorithm().equals(key.getAlgorithm())) {
            throw new IllegalArgumentException(keySource + " is an " + key.getAlgorithm() + " key, but " + certificateSource
                    + " certifies an " + certified.getAlgorithm() + " key: they are not a pair");
        }
        if (!signsFor(key, certified)) {
            throw new IllegalArgumentException(keySource + " is not the key " + certificateSource + " certifies (its first "
                    + "certificate, " + chain.getFirst().getSubjectX500Principal().getName() + "): give the key the certificate was "
                    + "issued for, or a certificate issued for this key");
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("server", key, IN_MEMORY_PASSWORD, chain.toArray(Certificate[]::new));
            return store;
        } catch (Exception e) {
            throw new IllegalStateException("cannot hold the server's key: " + e.getMessage(), e);
        }
    }

    /**
     * Whether a signature by the private key verifies with the public key: a server with a key that is not its
     * certificate's fails every handshake, so the pair is checked before it starts.
     */
    private static boolean signsFor(PrivateKey key, PublicKey certified) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm();   // Ed25519, Ed448: the key's algorithm is its signature's
        };
        byte[] challenge = "pacer: does this key belong to this certificate".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certified);
            verifier.update(challenge);
            try {
                return verifier.verify(signature);
            } catch (SignatureException unreadable) {   // a signature of another size (an RSA key of another length)
                return false;
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot check that the key and the certificate are a pair (" + algorithm + "): "
                    + e.getMessage(), e);
        }
    }

    /** A trust store of every certificate of a PEM text. */
    public static KeyStore trustStore(String pem, String source) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            List<X509Certificate> certificates = certificates(pem, source);
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("trusted-" + i, certificates.get(i));
            }
            return store;
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot hold the certificates of " + source + ": " + e.getMessage(), e);
        }
    }

    /** The password of {@link #keyStore}'s stores, which live in this process only. */
    public static String password() {
        return new String(IN_MEMORY_PASSWORD);
    }
}
