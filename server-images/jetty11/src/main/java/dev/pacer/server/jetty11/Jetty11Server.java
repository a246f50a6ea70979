package dev.pacer.server.jetty11;

import java.util.Set;

import javax.net.ssl.SSLEngine;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.tls.Pem;
import dev.pacer.agent.tls.ServerTls;
import dev.pacer.server.servlet.PlaintextServlet;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.HTTP2Cipher;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Jetty 11 server under test: one servlet, over HTTP/1.1, or over TLS (with {@code --tls-cert}) HTTP/1.1 and h2. Processing time is recorded by an {@link HttpChannel.Listener} bean on
 * the connector: from {@link Request#getBeginNanoTime()} (first byte read) to {@code onComplete} (the response
 * completed, successfully or not).
 */
public final class Jetty11Server {
    private Jetty11Server() {
    }

    public static void main(String[] args) {
        Launch.run("jetty11", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("servlet"), "servlet", true);
        Agent agent = Agent.startServerAgent(options).describeServer("jetty11", options.mode(), Server.getVersion());
        Server server = new Server(new QueuedThreadPool(options.maxThreads()));
        HttpConfiguration httpConfiguration = new HttpConfiguration();
        httpConfiguration.setSendServerVersion(false);
        ServerConnector connector = options.tls() == null
                ? new ServerConnector(server, new HttpConnectionFactory(httpConfiguration))
                : tlsConnector(server, httpConfiguration, options.tls(), agent);
        connector.setPort(options.port());
        if (Agent.recordingEnabled()) {
            connector.addBean(new ProcessingTimeListener(agent));
        }
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(PlaintextServlet.class, "/*");
        server.setHandler(context);
        server.start();
        agent.closeOnExit(server::stop);
        agent.markReady(connector.getLocalPort());
        System.out.println("pacer jetty11 listening on " + connector.getLocalPort() + ", admin port " + agent.adminPort());
        server.join();
    }

    /**
     * TLS, then h2 or HTTP/1.1 as ALPN chooses (HTTP/1.1 for a client offering no ALPN), as Jetty's https and http2
     * modules set it up; each handshake timed from its connection's accept into the agent's handshake series.
     */
    static ServerConnector tlsConnector(Server server, HttpConfiguration httpConfiguration, ServerTls tls, Agent agent) {
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
        SslConnectionFactory timedSsl = new SslConnectionFactory(ssl, alpn.getProtocol()) {
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
        };
        return new ServerConnector(server, timedSsl, alpn, h2, http1);
    }

    static final class ProcessingTimeListener implements HttpChannel.Listener {
        private final Agent agent;

        ProcessingTimeListener(Agent agent) {
            this.agent = agent;
        }

        @Override
        public void onComplete(Request request) {
            agent.recordNanos(System.nanoTime() - request.getBeginNanoTime());
        }
    }
}
