package dev.pacer.server.loom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.Workload;
import dev.pacer.agent.tls.ServerTls;

/**
 * The JDK's {@link HttpServer} dispatching every exchange to its own virtual thread: the architecture of
 * virtual-thread servers such as Chappe. With {@code --tls-cert}, HTTP/1.1 over TLS ({@link HttpsServer}).
 *
 * <p>What the processing time covers: from the handler's entry, the earliest point the JDK server exposes, to the
 * exchange closed after the last response byte was written. It misses what happens before dispatch: reading and
 * parsing the request line and headers on the server's selector thread and the wait for a virtual thread to be
 * scheduled. Under load that queueing can be the larger part, so compare loom's server figures with the others'
 * knowing this; the client's figures include it.
 */
public final class LoomServer {
    private LoomServer() {
    }

    public static void main(String[] args) {
        Launch.run("loom", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("virtual-threads"), "virtual-threads", true);
        // the JDK's server tells nothing of its handshakes: no handshake series (the clients' still times them)
        Agent agent = Agent.startServerAgent().describeServer("loom", options.mode(), "jdk-httpserver " + Runtime.version());
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        HttpServer server = options.tls() == null
                ? HttpServer.create(new InetSocketAddress(options.port()), 1024)
                : https(options.port(), options.tls());
        server.setExecutor(executor);
        boolean record = Agent.recordingEnabled();
        server.createContext("/", exchange -> handle(exchange, agent, record));
        server.start();
        agent.closeOnExit(() -> {
            server.stop(0);
            executor.shutdownNow();
        });
        int port = server.getAddress().getPort();
        agent.markReady(port);
        System.out.println("pacer loom listening" + (options.tls() == null ? "" : " (https)") + " on " + port + ", admin port " + agent.adminPort());
        Thread.currentThread().join();
    }

    /** HTTP/1.1 over TLS, the protocol versions of {@code --tls-protocols} alone. */
    static HttpsServer https(int port, ServerTls tls) throws IOException {
        HttpsServer server = HttpsServer.create(new InetSocketAddress(port), 1024);
        SSLContext context = tls.sslContext();
        server.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters parameters) {
                SSLParameters ssl = context.getDefaultSSLParameters();
                ssl.setProtocols(tls.protocols().toArray(String[]::new));
                parameters.setSSLParameters(ssl);
            }
        });
        return server;
    }

    static void handle(HttpExchange exchange, Agent agent, boolean record) throws IOException {
        long beginNanoTime = System.nanoTime();
        try (exchange) {
            try (InputStream requestBody = exchange.getRequestBody()) {
                requestBody.transferTo(OutputStream.nullOutputStream());
            }
            if (!Workload.isServedPath(exchange.getRequestURI().getPath())) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            Workload workload = Workload.parse(exchange.getRequestURI().getRawQuery());
            workload.perform();
            byte[] body = workload.body(exchange.getRequestURI().getPath());
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } finally {
            if (record) {
                agent.recordNanos(System.nanoTime() - beginNanoTime);
            }
        }
    }
}
