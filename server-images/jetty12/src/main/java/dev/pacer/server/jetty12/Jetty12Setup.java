package dev.pacer.server.jetty12;

import javax.net.ssl.SSLEngine;

import dev.pacer.agent.Agent;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.tls.Pem;
import dev.pacer.agent.tls.ServerTls;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.HTTP2Cipher;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * What every Jetty 12 mode shares, core API only: the ee9 image uses it without the ee10 classes that
 * {@link Jetty12Server} refers to.
 */
public final class Jetty12Setup {
    private Jetty12Setup() {
    }

    /** The server's one connector: {@link #addConnector(Server, int)} in cleartext, {@link #addTlsConnector} with {@code --tls-*}. */
    public static ServerConnector addConnector(Server server, ServerArgs options, Agent agent) {
        return options.tls() == null ? addConnector(server, options.port()) : addTlsConnector(server, options.port(), options.tls(), agent);
    }

    /**
     * HTTP/1.1, and h2c with prior knowledge (the HTTP/1.1 connection hands a request starting with the HTTP/2 preface
     * over to the h2c factory), without the Server header.
     */
    public static ServerConnector addConnector(Server server, int port) {
        HttpConfiguration httpConfiguration = new HttpConfiguration();
        httpConfiguration.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(httpConfiguration),
                new HTTP2CServerConnectionFactory(httpConfiguration));
        connector.setPort(port);
        server.addConnector(connector);
        return connector;
    }

    /**
     * TLS, then h2 or HTTP/1.1 as ALPN chooses (HTTP/1.1 for a client that offers no ALPN), as Jetty's https and http2
     * modules set it up. Each handshake the server completes is timed from its connection's accept into the agent's
     * handshake series.
     */
    public static ServerConnector addTlsConnector(Server server, int port, ServerTls tls, Agent agent) {
        HttpConfiguration httpConfiguration = new HttpConfiguration();
        httpConfiguration.setSendServerVersion(false);
        httpConfiguration.addCustomizer(new SecureRequestCustomizer(false));   // clients address the server by IP: no SNI to check
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(tls.keyStore());
        ssl.setKeyStorePassword(Pem.password());
        ssl.setIncludeProtocols(tls.protocols().toArray(String[]::new));
        ssl.setCipherComparator(HTTP2Cipher.COMPARATOR);
        HttpConnectionFactory http1 = new HttpConnectionFactory(httpConfiguration);
        HTTP2ServerConnectionFactory h2 = new HTTP2ServerConnectionFactory(httpConfiguration);
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
        alpn.setDefaultProtocol(http1.getProtocol());
        ServerConnector connector = new ServerConnector(server, new TimedSslConnectionFactory(ssl, alpn.getProtocol(), agent), alpn, h2, http1);
        connector.setPort(port);
        server.addConnector(connector);
        return connector;
    }

    /** The application, wrapped in {@link ProcessingTimeHandler} unless recording is off. */
    public static void setTimedHandler(Server server, Handler application, Agent agent) {
        server.setHandler(Agent.recordingEnabled() ? new ProcessingTimeHandler(application, agent::recordNanos) : application);
    }

    /** Times each handshake from the connection's creation (its accept) to the handshake's success. */
    static final class TimedSslConnectionFactory extends SslConnectionFactory {
        private final Agent agent;

        TimedSslConnectionFactory(SslContextFactory.Server ssl, String nextProtocol, Agent agent) {
            super(ssl, nextProtocol);
            this.agent = agent;
        }

        @Override
        protected SslConnection newSslConnection(Connector connector, EndPoint endPoint, SSLEngine engine) {
            long acceptedNanos = System.nanoTime();
            SslConnection connection = super.newSslConnection(connector, endPoint, engine);
            connection.addHandshakeListener(new SslHandshakeListener() {
                @Override
                public void handshakeSucceeded(Event event) {
                    agent.recordHandshakeNanos(System.nanoTime() - acceptedNanos);
                }
            });
            return connection;
        }
    }
}
