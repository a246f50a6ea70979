package dev.pacer.server.jetty11;

import java.io.IOException;
import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.Workload;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
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
        dev.pacer.agent.Launch.run("jetty11", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("servlet"), "servlet");
        Agent agent = Agent.startServerAgent();
        agent.putInfo("server", "jetty11");
        agent.putInfo("variant", options.mode());
        agent.putInfo("serverVersion", Server.getVersion());
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
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception ignored) {
                // exiting anyway
            }
            agent.close();
        }, "pacer-shutdown"));
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
