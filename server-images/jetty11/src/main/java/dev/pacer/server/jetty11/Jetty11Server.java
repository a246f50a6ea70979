package dev.pacer.server.jetty11;

import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.server.servlet.PlaintextServlet;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Jetty 11 server under test: one servlet. Processing time is recorded by an {@link HttpChannel.Listener} bean on
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
        ServerArgs options = ServerArgs.parse(args, Set.of("servlet"), "servlet");
        Agent agent = Agent.startServerAgent().describeServer("jetty11", options.mode(), Server.getVersion());
        Server server = new Server(new QueuedThreadPool(options.maxThreads()));
        HttpConfiguration httpConfiguration = new HttpConfiguration();
        httpConfiguration.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(httpConfiguration));
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
