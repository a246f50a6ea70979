package dev.pacer.server.jetty12;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.Workload;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Jetty 12 server under test, HTTP/1.1 and h2c. {@code --mode=core}: a plain {@link Handler}; {@code --mode=ee10}: a servlet in an
 * EE10 {@link ServletContextHandler}. Both answer {@code GET /} and {@code GET /plaintext} with the
 * {@link Workload} of the query, and record processing time through {@link ProcessingTimeHandler}.
 */
public final class Jetty12Server {
    public static final Set<String> MODES = Set.of("core", "ee10");

    private Jetty12Server() {
    }

    public static void main(String[] args) {
        dev.pacer.agent.Launch.run("jetty12", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, MODES, "core");
        Agent agent = Agent.startServerAgent();
        agent.putInfo("server", "jetty12");
        agent.putInfo("variant", options.mode());
        agent.putInfo("serverVersion", Server.getVersion());
        Server server = new Server(new QueuedThreadPool(options.maxThreads()));
        HttpConfiguration httpConfiguration = new HttpConfiguration();
        httpConfiguration.setSendServerVersion(false);
        // HTTP/1.1, and h2c with prior knowledge (the HTTP/1.1 connection hands a request starting with the HTTP/2
        // preface over to the h2c factory)
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(httpConfiguration),
                new HTTP2CServerConnectionFactory(httpConfiguration));
        connector.setPort(options.port());
        server.addConnector(connector);
        Handler application = "ee10".equals(options.mode()) ? servletContext() : new CoreHandler();
        server.setHandler(Agent.recordingEnabled() ? new ProcessingTimeHandler(application, agent::recordNanos) : application);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception ignored) {
                // exiting anyway
            }
            agent.close();
        }, "pacer-shutdown"));
        agent.markReady(connector.getLocalPort());
        System.out.println("pacer jetty12 (" + options.mode() + ") listening on " + connector.getLocalPort()
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
            response.write(true, ByteBuffer.wrap(workload.body()), callback);
            return true;
        }
    }

    private static ServletContextHandler servletContext() {
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(PlaintextServlet.class, "/*");
        return context;
    }

    public static final class PlaintextServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            if (!Workload.isServedServletPath(request.getServletPath(), request.getPathInfo())) {
                response.sendError(404);
                return;
            }
            Workload workload = Workload.parse(request.getQueryString());
            workload.perform();
            byte[] body = workload.body();
            response.setContentType("text/plain");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            doGet(request, response);
        }
    }
}
