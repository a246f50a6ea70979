package dev.pacer.server.jetty12;

import dev.pacer.agent.Agent;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * What every Jetty 12 mode shares, core API only: the ee9 image uses it without the ee10 classes that
 * {@link Jetty12Server} refers to.
 */
public final class Jetty12Setup {
    private Jetty12Setup() {
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

    /** The application, wrapped in {@link ProcessingTimeHandler} unless recording is off. */
    public static void setTimedHandler(Server server, Handler application, Agent agent) {
        server.setHandler(Agent.recordingEnabled() ? new ProcessingTimeHandler(application, agent::recordNanos) : application);
    }
}
