package dev.pacer.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;

import dev.pacer.agent.tls.Pem;
import dev.pacer.contract.RunRequest;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The client side of an https run: what it trusts (the certificate the run gives, nothing else), the protocol versions
 * it offers, and whether a new connection may resume an earlier session. The server's name is checked against its
 * certificate as browsers do (endpoint identification {@code HTTPS}).
 */
final class ClientTls {
    private ClientTls() {
    }

    /** The TLS of one shard's connections. */
    static Factory contextFactory(RunRequest.Tls tls) {
        Factory ssl = new Factory(tls.sessionResumption());
        ssl.setTrustStore(trusted(tls));
        ssl.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setIncludeProtocols(tls.protocols().toArray(String[]::new));
        return ssl;
    }

    /** What the client trusts: the PEM in the request, else the file it names. */
    static KeyStore trusted(RunRequest.Tls tls) {
        if (tls.trustedCertificatesPem() != null && !tls.trustedCertificatesPem().isBlank()) {
            return Pem.trustStore(tls.trustedCertificatesPem(), "the run's trusted certificate");
        }
        try {
            return Pem.trustStore(Files.readString(Path.of(tls.trustedCertificatesFile()), StandardCharsets.US_ASCII), tls.trustedCertificatesFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the certificate to trust, " + tls.trustedCertificatesFile() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where the client connects: the target's address, under the name the certificate must hold ({@code serverName}),
     * which is also what TLS sends as SNI. Without a name, the target's host as it is.
     */
    static InetSocketAddress address(String targetHost, int port, RunRequest.Tls tls) {
        if (tls == null || tls.serverName() == null) {
            return new InetSocketAddress(targetHost, port);
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(tls.serverName(), InetAddress.getByName(targetHost).getAddress()), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve the target " + targetHost + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes each connection's engine, once its TCP connection is made, and times its handshake from then
     * ({@link #handshakeTimer}).
     * <p>Resumption off: the JDK resumes a session it finds under the server's host and port; each engine is then keyed
     * by a port no earlier connection used, so none is found and every handshake is a full one. The host, which the
     * certificate check and SNI use, stays the server's.
     */
    static final class Factory extends SslContextFactory.Client {
        private static final AtomicInteger KEYS = new AtomicInteger();
        private final boolean resumption;
        /** Engines whose handshake has not ended; weak: a connection closed before either end leaves nothing behind. */
        private final Map<SSLEngine, Long> madeAtNanos = Collections.synchronizedMap(new WeakHashMap<>());

        Factory(boolean resumption) {
            this.resumption = resumption;
        }

        @Override
        public SSLEngine newSSLEngine(String host, int port) {
            SSLEngine engine = super.newSSLEngine(host, resumption ? port : 65_536 + (KEYS.getAndIncrement() & 0x3fff_ffff));
            madeAtNanos.put(engine, System.nanoTime());
            return engine;
        }

        /** Tells each handshake's time once, however many connections' listeners see it. */
        SslHandshakeListener handshakeTimer(LongConsumer handshakeNanos) {
            return new SslHandshakeListener() {
                @Override
                public void handshakeSucceeded(Event event) {
                    Long madeAt = madeAtNanos.remove(event.getSSLEngine());
                    if (madeAt != null) {
                        handshakeNanos.accept(System.nanoTime() - madeAt);
                    }
                }

                @Override
                public void handshakeFailed(Event event, Throwable failure) {
                    madeAtNanos.remove(event.getSSLEngine());
                }
            };
        }
    }

    /**
     * Why a TLS connection could not be made, in words a server engineer acts on: the certificate expired, names another
     * host, is not the one trusted, or no protocol version is shared. {@code null} when the failure is not TLS's.
     */
    static String explain(Throwable failure, String targetUrl) {
        Throwable cause = failure instanceof ExecutionException && failure.getCause() != null ? failure.getCause() : failure;
        boolean tls = false;
        for (Throwable t = cause; t != null; t = t.getCause()) {
            tls |= t instanceof SSLHandshakeException || t instanceof javax.net.ssl.SSLException;
            if (t instanceof CertificateExpiredException) {
                return "the server's certificate has expired (" + t.getMessage() + "): give the run a valid certificate (spec.tls.certificate)";
            }
            if (t instanceof CertificateNotYetValidException) {
                return "the server's certificate is not valid yet (" + t.getMessage() + "): check its notBefore and the clocks";
            }
            if (t instanceof CertPathValidatorException && t.getCause() instanceof CertificateExpiredException expired) {
                return "the server's certificate has expired (" + expired.getMessage() + "): give the run a valid certificate (spec.tls.certificate)";
            }
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (t instanceof CertificateException && message.startsWith("No subject alternative")) {
                return "the server's certificate does not name the host the clients connect to (" + message + "): add it to the "
                        + "certificate's subject alternative names";
            }
            if (t instanceof CertPathValidatorException || message.contains("unable to find valid certification path")) {
                return "the server's certificate is not one the run trusts (" + message + "): the clients trust spec.tls.certificate's "
                        + "ca.crt, else its tls.crt";
            }
            if (message.contains("protocol_version") || message.contains("No appropriate protocol")) {
                return "the server and the clients share no TLS version (" + message + "): check spec.tls.protocols";
            }
        }
        return tls ? "the TLS handshake with " + targetUrl + " failed: " + cause.getClass().getSimpleName() + ": " + cause.getMessage() : null;
    }
}
