package dev.pacer.agent.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * What a server under test needs to serve https: its certificate chain and key (PEM files, as a mounted Kubernetes TLS
 * Secret holds them) and the protocol versions it accepts. From {@code --tls-cert}, {@code --tls-key} and
 * {@code --tls-protocols}.
 */
public record ServerTls(Path certificate, Path key, List<String> protocols) {
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** The key and its chain, read now: a missing or unreadable file fails the server's start, naming it. */
    public KeyStore keyStore() {
        return Pem.keyStore(read(certificate), read(key), certificate.toString(), key.toString());
    }

    /** An SSL context of the JDK's provider holding {@link #keyStore()}, for servers that take one (loom). */
    public SSLContext sslContext() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore(), Pem.password().toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS from " + certificate + " and " + key + ": " + e.getMessage(), e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
