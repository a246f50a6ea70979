package dev.pacer.server.jetty12;

import java.nio.ByteBuffer;
import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.Workload;
import dev.pacer.server.servlet.PlaintextServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Jetty 12 server under test, HTTP/1.1 and h2c, or over TLS (with {@code --tls-cert}) HTTP/1.1 and h2. {@code --mode=core}: a plain {@link Handler}; {@code --mode=ee10}: a servlet in an
 * EE10 {@link ServletContextHandler}. Both answer {@code GET /} and {@code GET /plaintext} with the
 * {@link Workload} of the query, and record processing time through {@link ProcessingTimeHandler}.
 */
public final class Jetty12Server {
    public static final Set<String> MODES = Set.of("core", "ee10");

    private Jetty12Server() {
    }

    public static void main(String[] args) {
        Launch.run("jetty12", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, MODES, "core", true);
        Agent agent = Agent.startServerAgent(options).describeServer("jetty12", options.mode(), Server.getVersion());
        Server server = new Server(new QueuedThreadPool(options.maxThreads()));
        ServerConnector connector = Jetty12Setup.addConnector(server, options, agent);
        Handler application = "ee10".equals(options.mode()) ? servletContext() : new CoreHandler();
        Jetty12Setup.setTimedHandler(server, application, agent);
        server.start();
        agent.closeOnExit(server::stop);
        agent.markReady(connector.getLocalPort());
        System.out.println("pacer jetty12 (" + options.mode() + ") listening" + (options.tls() == null ? "" : " (https)") + " on " + connector.getLocalPort()
                + ", admin port " + agent.adminPort());
        server.join();
    }

    static final class CoreHandler extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            if (!Workload.isServedPath(Request.getPathInContext(request))) {
                Response.writeError(request, response, callback, 404);
                return true;
            }
            Workload workload = Workload.parse(request.getHttpURI().getQuery());
            workload.perform();
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.write(true, ByteBuffer.wrap(workload.body(Request.getPathInContext(request))), callback);
            return true;
        }
    }

    private static ServletContextHandler servletContext() {
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(PlaintextServlet.class, "/*");
        return context;
    }
}
