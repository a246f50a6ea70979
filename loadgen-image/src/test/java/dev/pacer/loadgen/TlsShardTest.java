package dev.pacer.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLEngine;

import dev.pacer.agent.tls.Pem;
import dev.pacer.contract.RunRequest;
import dev.pacer.engine.tls.RunCertificate;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shards over TLS against a real Jetty server with ALPN: every request answered, a handshake per connection counted on
 * both sides, connections retired after their requests, resumption as asked, and a bad certificate told as such.
 */
class TlsShardTest {
    static final Instant NOW = Instant.now();

    final ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
    final AtomicInteger clientHandshakes = new AtomicInteger();
    final AtomicInteger serverHandshakes = new AtomicInteger();
    /** Handshakes the server completed on a session made before the connection: resumed ones. */
    final AtomicInteger serverResumed = new AtomicInteger();
    final AtomicInteger protocolsH2 = new AtomicInteger();
    /** Requests sent again: none, from a server that refuses no stream. */
    final AtomicInteger clientResends = new AtomicInteger();
    /** Requests served per connection, by the server's connection id. */
    final Map<String, AtomicInteger> requestsByConnection = new ConcurrentHashMap<>();
    /** The host each request named (Host or :authority). */
    final ConcurrentLinkedQueue<String> hosts = new ConcurrentLinkedQueue<>();
    Server server;
    Shard shard;
    /** The protocols the server offers over ALPN, its preference first (none: it does no ALPN, and speaks HTTP/1.1). */
    String[] serverProtocols = {"h2", "http/1.1"};

    final Shard.Completions completions = new Shard.Completions() {
        @Override
        public void begun() {
        }

        @Override
        public void resent() {
            clientResends.incrementAndGet();
        }

        @Override
        public void sendLag(long lagNanos) {
        }

        @Override
        public void completed(int status, Throwable failure, long intendedNanos, long begunNanos) {
            statuses.add(failure != null ? -1 : status);
        }

        @Override
        public void handshake(long nanos) {
            assertThat(nanos).isPositive();
            clientHandshakes.incrementAndGet();
        }
    };

    int start(RunCertificate certificate) throws Exception {
        server = new Server();
        HttpConfiguration configuration = new HttpConfiguration();
        configuration.addCustomizer(new SecureRequestCustomizer(false));
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(Pem.keyStore(certificate.certificatePem(), certificate.keyPem(), "tls.crt", "tls.key"));
        ssl.setKeyStorePassword(Pem.password());
        HttpConnectionFactory http1 = new HttpConnectionFactory(configuration);
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory(serverProtocols);
        alpn.setDefaultProtocol(http1.getProtocol());
        boolean noAlpn = serverProtocols.length == 0;
        SslConnectionFactory counted = new SslConnectionFactory(ssl, noAlpn ? http1.getProtocol() : alpn.getProtocol()) {
            @Override
            protected SslConnection newSslConnection(Connector connector, EndPoint endPoint, SSLEngine engine) {
                long acceptedMillis = System.currentTimeMillis();
                SslConnection connection = super.newSslConnection(connector, endPoint, engine);
                connection.addHandshakeListener(new SslHandshakeListener() {
                    @Override
                    public void handshakeSucceeded(Event event) {
                        serverHandshakes.incrementAndGet();
                        if (event.getSSLEngine().getSession().getCreationTime() < acceptedMillis - 1) {
                            serverResumed.incrementAndGet();
                        }
                    }
                });
                return connection;
            }
        };
        ServerConnector connector = noAlpn ? new ServerConnector(server, 1, 1, counted, http1)
                : new ServerConnector(server, 1, 1, counted, alpn, new HTTP2ServerConnectionFactory(configuration), http1);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                hosts.add(Request.getServerName(request));
                requestsByConnection.computeIfAbsent(request.getConnectionMetaData().getId(), id -> new AtomicInteger()).incrementAndGet();
                if (request.getConnectionMetaData().getHttpVersion().asString().equals("HTTP/2.0")) {
                    protocolsH2.incrementAndGet();
                }
                response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        server.start();
        return connector.getLocalPort();
    }

    static RunCertificate localCertificate() {
        return RunCertificate.selfSigned(List.of("127.0.0.1", "localhost"), NOW.minusSeconds(60), NOW.plus(Duration.ofDays(1)));
    }

    Shard shard(int port, String version, int connections, RunRequest.Tls tls) throws Exception {
        RunRequest spec = new RunRequest("https://127.0.0.1:" + port, 1000, connections, 1, version,
                new RunRequest.HttpRequestSpec("GET", "/", Map.of(), null), 0, 1000, 1000, 0, 5_000, 0, tls);
        assertThat(spec.problems()).isEmpty();
        shard = Shard.of(0, spec, Shard.resource(spec), connections, 10_000, completions);
        shard.connect(10_000);
        return shard;
    }

    static RunRequest.Tls tls(String trustedPem, boolean resumption, int requestsPerConnection) {
        return new RunRequest.Tls(List.of("TLSv1.3", "TLSv1.2"), resumption, requestsPerConnection, trustedPem);
    }

    static String describe(Throwable failure) {
        StringBuilder chain = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            chain.append(" <- ").append(t);
        }
        return chain.toString();
    }

    @AfterEach
    void stop() throws Exception {
        if (shard != null) {
            shard.closeInBackground();
        }
        if (server != null) {
            server.stop();
        }
    }

    void sendAndAwait(Shard shard, int requests) throws InterruptedException {
        for (int i = 0; i < requests; i++) {
            assertThat(shard.trySend(i, System.nanoTime())).isTrue();
            Thread.sleep(0, 500_000);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> statuses.size() == requests);
        assertThat(statuses).containsOnly(200);
    }

    @Test
    void http1OverTlsShakesHandsOncePerConnectionOnBothSidesAndEveryRequestIsAnswered() throws Exception {
        RunCertificate certificate = localCertificate();
        Shard shard = shard(start(certificate), RunRequest.HTTP_1_1, 4, tls(certificate.certificatePem(), true, 0));
        assertThat(shard).isInstanceOf(Http1Shard.class);
        sendAndAwait(shard, 400);
        assertThat(clientHandshakes).hasValue(4);
        assertThat(serverHandshakes).hasValue(4);
        assertThat(protocolsH2).as("HTTP/1.1 offers no ALPN: the server's default").hasValue(0);
    }

    /**
     * Every connection served at most its 10 requests, each that served them all was replaced by one more, and each
     * connection made one handshake, counted alike by the client and the server: 2 + the retired ones. (Which connection
     * serves which request is the server's timing: the count follows from what the server saw.)
     */
    void assertRetiredAndReplaced() {
        assertThat(requestsByConnection.values()).allSatisfy(served -> assertThat(served.get()).isBetween(1, 10));
        long retired = requestsByConnection.values().stream().filter(served -> served.get() == 10).count();
        assertThat(retired).as("200 responses, at most 10 per connection").isGreaterThanOrEqualTo(19);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(serverHandshakes).hasValue((int) (2 + retired)));
        assertThat(clientHandshakes).hasValue((int) (2 + retired));
    }

    @Test
    void aConnectionIsRetiredAfterItsRequestsAndEachNewOneShakesHandsFully() throws Exception {
        RunCertificate certificate = localCertificate();
        Shard shard = shard(start(certificate), RunRequest.HTTP_1_1, 2, tls(certificate.certificatePem(), false, 10));
        sendAndAwait(shard, 200);
        assertRetiredAndReplaced();
        assertThat(serverResumed).as("resumption off: every handshake a full one").hasValue(0);
    }

    @Test
    void withResumptionTheNewConnectionsResumeTheirSession() throws Exception {
        RunCertificate certificate = localCertificate();
        Shard shard = shard(start(certificate), RunRequest.HTTP_1_1, 2, tls(certificate.certificatePem(), true, 10));
        sendAndAwait(shard, 200);
        assertRetiredAndReplaced();
        // the JDK resumes once the server's ticket came: most, not all (off, above: none)
        assertThat(serverResumed.get()).as("resumed handshakes of " + serverHandshakes).isGreaterThan(serverHandshakes.get() / 2);
    }

    @Test
    void h2IsChosenByAlpnAndMultiplexesOnItsConnections() throws Exception {
        RunCertificate certificate = localCertificate();
        Shard shard = shard(start(certificate), RunRequest.H2, 2, tls(certificate.certificatePem(), true, 0));
        assertThat(shard).isInstanceOf(Http2Shard.class);
        sendAndAwait(shard, 300);
        assertThat(protocolsH2).hasValue(300);
        assertThat(serverHandshakes).hasValue(2);
        assertThat(clientHandshakes).hasValue(2);
        assertThat(clientResends).as("sent again").hasValue(0);
    }

    @Test
    void h2ToAServerWithoutAlpnFailsTheConnectNamingWhy() throws Exception {
        serverProtocols = new String[0];
        RunCertificate certificate = localCertificate();
        int port = start(certificate);
        assertThatThrownBy(() -> shard(port, RunRequest.H2, 1, tls(certificate.certificatePem(), true, 0)))
                .hasStackTraceContaining("the server did not choose h2 over ALPN (it chose none): it does not speak h2 over TLS");
        // TLS 1.3: the client ends its handshake (and fails) before the server has read its Finished
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(serverHandshakes).as("the handshake succeeded; ALPN did not choose h2").hasValue(1));
    }

    @Test
    void aCertificateForAnotherHostFailsTheConnectNamingWhy() throws Exception {
        RunCertificate other = RunCertificate.selfSigned(List.of("server.example"), NOW.minusSeconds(60), NOW.plus(Duration.ofDays(1)));
        int port = start(other);
        assertThatThrownBy(() -> shard(port, RunRequest.HTTP_1_1, 1, tls(other.certificatePem(), true, 0)))
                .satisfies(failure -> assertThat(ClientTls.explain(failure, "https://127.0.0.1:" + port)).as(describe(failure))
                        .startsWith("the server's certificate does not name the host the clients connect to"));
    }

    @ParameterizedTest
    @ValueSource(strings = {RunRequest.HTTP_1_1, RunRequest.H2})
    void aServerNameIsCheckedAndSentWhileTheTargetsAddressIsConnectedTo(String version, @TempDir Path files) throws Exception {
        RunCertificate named = RunCertificate.selfSigned(List.of("server.example"), NOW.minusSeconds(60), NOW.plus(Duration.ofDays(1)));
        Path trusted = Files.writeString(files.resolve("tls.crt"), named.certificatePem());
        Shard shard = shard(start(named), version, 2, new RunRequest.Tls(List.of("TLSv1.3"), true, 0, null, trusted.toString(), "server.example"));
        sendAndAwait(shard, 50);
        assertThat(serverHandshakes).hasValue(2);
        assertThat(hosts).containsOnly("server.example");
    }

    @Test
    void anExpiredCertificateFailsTheConnectNamingWhy() throws Exception {
        RunCertificate authority = RunCertificate.authority("pacer test CA", NOW.minus(Duration.ofDays(30)), NOW.plus(Duration.ofDays(30)));
        RunCertificate expired = authority.issue(List.of("127.0.0.1"), NOW.minus(Duration.ofDays(10)), NOW.minus(Duration.ofDays(1)));
        int port = start(expired);
        assertThatThrownBy(() -> shard(port, RunRequest.HTTP_1_1, 1, tls(authority.certificatePem(), true, 0)))
                .satisfies(failure -> assertThat(ClientTls.explain(failure, "https://127.0.0.1:" + port)).as(describe(failure))
                        .startsWith("the server's certificate has expired"));
    }

    @Test
    void aCertificateNotTheTrustedOneFailsTheConnectNamingWhy() throws Exception {
        int port = start(localCertificate());
        String someoneElse = localCertificate().certificatePem();
        assertThatThrownBy(() -> shard(port, RunRequest.HTTP_1_1, 1, tls(someoneElse, true, 0)))
                .satisfies(failure -> assertThat(ClientTls.explain(failure, "https://127.0.0.1:" + port)).as(describe(failure))
                        .startsWith("the server's certificate is not one the run trusts"));
    }
}
