package dev.pacer.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongConsumer;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.ClientConnectionFactory;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.io.ssl.SslClientConnectionFactory;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;

/**
 * Opens a shard's connections on Jetty's I/O layer, its own and nobody else's: TCP, and over TLS ({@link ClientTls}) the
 * handshake, timed from the TCP connection to its end, with the ALPN protocol the shard speaks when it names one. A
 * connection is handed over once it can carry bytes: in cleartext once connected, over TLS once its handshake succeeded
 * (and ALPN chose the protocol asked for).
 *
 * @param <C> the shard's connection
 */
final class WireOpener<C extends AbstractConnection> {
    private final ClientConnector connector;
    private final InetSocketAddress address;
    private final ClientTls.Factory sslContext;
    private final String alpnProtocol;
    private final Function<EndPoint, C> newConnection;
    private final Class<C> connectionType;
    private SslClientConnectionFactory tls;   // made once the connector started (it needs its buffers)
    private SslHandshakeListener handshakeTimer;

    /**
     * @param sslContext   TLS: every connection's, or null in cleartext
     * @param alpnProtocol the protocol ALPN must choose (over TLS), or null to offer none
     */
    WireOpener(ClientConnector connector, InetSocketAddress address, ClientTls.Factory sslContext, String alpnProtocol,
               Class<C> connectionType, Function<EndPoint, C> newConnection) {
        this.connector = connector;
        this.address = address;
        this.sslContext = sslContext;
        this.alpnProtocol = alpnProtocol;
        this.connectionType = connectionType;
        this.newConnection = newConnection;
        if (sslContext != null) {
            connector.setSslContextFactory(sslContext);
        }
    }

    /** Once the connector started: each handshake's time goes to {@code handshakeNanos}. */
    void start(Executor threads, LongConsumer handshakeNanos) {
        if (sslContext != null) {
            handshakeTimer = sslContext.handshakeTimer(handshakeNanos);
            tls = new TimedTls(threads);
        }
    }

    boolean overTls() {
        return sslContext != null;
    }

    /** A connection, once it can carry bytes (over TLS: once its handshake succeeded), or why it could not be. */
    CompletableFuture<C> open() {
        CompletableFuture<C> opened = new CompletableFuture<>();
        Map<String, Object> context = new HashMap<>();
        context.put(ClientConnector.CONTEXT_KEY, connector);
        context.put(Transport.CONTEXT_KEY, Transport.TCP_IP);
        context.put(OPENED_CONTEXT_KEY, opened);
        if (tls == null) {
            context.put(ClientConnectionFactory.CONTEXT_KEY, (ClientConnectionFactory) (endPoint, ignored) -> newConnection.apply(endPoint));
        } else {
            context.put(ClientConnectionFactory.CONTEXT_KEY, tls);
            context.put(ClientConnector.REMOTE_SOCKET_ADDRESS_CONTEXT_KEY, address);   // the name the certificate must hold
        }
        context.put(ClientConnector.CONNECTION_PROMISE_CONTEXT_KEY, new org.eclipse.jetty.util.Promise<Connection>() {
            @Override
            public void succeeded(Connection connection) {
                // over TLS, the handshake's end completes it
                if (connectionType.isInstance(connection) && !opened.complete(connectionType.cast(connection))) {
                    connection.getEndPoint().close();   // given up on: nobody would use it
                }
            }

            @Override
            public void failed(Throwable failure) {
                opened.completeExceptionally(failure);
            }
        });
        connector.connect(address, context);
        // the connect timeout covers TCP's connect; a handshake that never ends must not keep the shard one connection short
        return opened.orTimeout(2 * LoadRun.CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private static final String OPENED_CONTEXT_KEY = "pacer.opened";

    /** Opens each connection's TLS, offers the shard's ALPN protocol, and times the handshake. */
    private final class TimedTls extends SslClientConnectionFactory {
        TimedTls(Executor threads) {
            super(sslContext, connector.getByteBufferPool(), threads, (endPoint, context) -> newConnection.apply(endPoint));
        }

        @Override
        public Connection newConnection(EndPoint endPoint, Map<String, Object> context) throws IOException {
            Connection connection = super.newConnection(endPoint, context);
            @SuppressWarnings("unchecked")
            CompletableFuture<C> opened = (CompletableFuture<C>) context.get(OPENED_CONTEXT_KEY);
            SslConnection ssl = (SslConnection) connection;
            if (alpnProtocol != null) {
                SSLEngine engine = ssl.getSSLEngine();
                SSLParameters parameters = engine.getSSLParameters();
                parameters.setApplicationProtocols(new String[] {alpnProtocol});
                engine.setSSLParameters(parameters);
            }
            ssl.addHandshakeListener(handshakeTimer);   // times it from the engine's making, and forgets the engine
            ssl.addHandshakeListener(new SslHandshakeListener() {
                @Override
                public void handshakeSucceeded(Event event) {
                    C carrier = connectionType.cast(ssl.getSslEndPoint().getConnection());
                    String chosen = event.getSSLEngine().getApplicationProtocol();
                    if (alpnProtocol != null && !alpnProtocol.equals(chosen)) {
                        opened.completeExceptionally(new IOException("the server did not choose " + alpnProtocol + " over ALPN (it chose "
                                + (chosen == null || chosen.isEmpty() ? "none" : chosen) + "): it does not speak " + alpnProtocol + " over TLS"));
                        carrier.getEndPoint().close();
                    } else if (!opened.complete(carrier)) {   // given up on (its open took too long): nobody would use it
                        carrier.getEndPoint().close();
                    }
                }

                @Override
                public void handshakeFailed(Event event, Throwable failure) {
                    opened.completeExceptionally(failure);
                }
            });
            return connection;
        }
    }
}
