package dev.pacer.server.jetty12ee9;

import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.server.jetty12.Jetty12Setup;
import dev.pacer.server.jetty12.ProcessingTimeHandler;
import dev.pacer.server.servlet.PlaintextServlet;
import org.eclipse.jetty.ee9.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Jetty 12 ee9 server under test: the Servlet 5 API that Jetty 11 serves, on Jetty 12's core, HTTP/1.1 and h2c.
 * It is the fair match for Jetty 11 (same servlet, same API), where ee10 adds the move to Servlet 6. Processing time
 * is recorded at the core level by {@link ProcessingTimeHandler}, around the ee9 context, as for the other Jetty 12
 * modes.
 */
public final class Jetty12Ee9Server {
    private Jetty12Ee9Server() {
    }

    public static void main(String[] args) {
        Launch.run("jetty12-ee9", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("ee9"), "ee9", true);
        Agent agent = Agent.startServerAgent(options).describeServer("jetty12", options.mode(), Server.getVersion());
        Server server = new Server(new QueuedThreadPool(options.maxThreads()));
        ServerConnector connector = Jetty12Setup.addConnector(server, options, agent);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(PlaintextServlet.class, "/*");
        Jetty12Setup.setTimedHandler(server, context.get(), agent);   // the ee9 context's core handler
        server.start();
        agent.closeOnExit(server::stop);
        agent.markReady(connector.getLocalPort());
        System.out.println("pacer jetty12 (ee9) listening on " + connector.getLocalPort() + ", admin port " + agent.adminPort());
        server.join();
    }
}
