package dev.pacer.server.vertx;

import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.ServerVersion;
import dev.pacer.agent.Workload;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * Vert.x 4.5's core HTTP server with its defaults, as Chappe's shoot-out runs it: one verticle-less server on one
 * event loop, the handler run on that event loop (so a request's workload holds every connection of the loop).
 *
 * <p>What the processing time covers: from the request handler's entry, once Vert.x has parsed the request head, to
 * the response written (its {@code end} future completed).
 */
public final class VertxServer {
    private VertxServer() {
    }

    public static void main(String[] args) {
        Launch.run("vertx", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("defaults"), "defaults");
        Agent agent = Agent.startServerAgent().describeServer("vertx", options.mode(), ServerVersion.of(VertxServer.class));
        Vertx vertx = Vertx.vertx();
        boolean record = Agent.recordingEnabled();
        HttpServer server = vertx.createHttpServer().requestHandler(request -> handle(request, agent, record))
                .listen(options.port()).toCompletionStage().toCompletableFuture().get();
        agent.closeOnExit(() -> vertx.close().toCompletionStage().toCompletableFuture().get());
        agent.markReady(server.actualPort());
        System.out.println("pacer vertx listening on " + server.actualPort() + ", admin port " + agent.adminPort());
        Thread.currentThread().join();
    }

    static void handle(HttpServerRequest request, Agent agent, boolean record) {
        long beginNanoTime = System.nanoTime();
        var response = request.response();
        String path = request.path();
        if (!Workload.isServedPath(path)) {
            response.setStatusCode(404).end().onComplete(done -> recorded(agent, record, beginNanoTime));
            return;
        }
        Workload workload = Workload.parse(request.query());
        workload.perform();
        response.putHeader("Content-Type", "text/plain").end(Buffer.buffer(workload.body(path)))
                .onComplete(done -> recorded(agent, record, beginNanoTime));
    }

    private static void recorded(Agent agent, boolean record, long beginNanoTime) {
        if (record) {
            agent.recordNanos(System.nanoTime() - beginNanoTime);
        }
    }
}
