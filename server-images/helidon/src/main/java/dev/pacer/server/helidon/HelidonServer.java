package dev.pacer.server.helidon;

import java.util.Set;

import dev.pacer.agent.Agent;
import dev.pacer.agent.Launch;
import dev.pacer.agent.ServerArgs;
import dev.pacer.agent.ServerVersion;
import dev.pacer.agent.Workload;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * Helidon SE 4's web server: its own HTTP/1.1 implementation with every request handled on a virtual thread, the
 * architecture of Chappe and of pacer's loom server, from a framework.
 *
 * <p>What the processing time covers: from the routing handler's entry, once Helidon has read the request head on the
 * connection's virtual thread, to {@code send} returned with the response written.
 */
public final class HelidonServer {
    private HelidonServer() {
    }

    public static void main(String[] args) {
        Launch.run("helidon", () -> start(args));
    }

    static void start(String[] args) throws Exception {
        ServerArgs options = ServerArgs.parse(args, Set.of("virtual-threads"), "virtual-threads");
        Agent agent = Agent.startServerAgent().describeServer("helidon", options.mode(), ServerVersion.of(HelidonServer.class));
        boolean record = Agent.recordingEnabled();
        WebServer server = WebServer.builder().port(options.port())
                .routing(routing -> routing.any((request, response) -> handle(request, response, agent, record)))
                .build().start();
        agent.closeOnExit(server::stop);
        agent.markReady(server.port());
        System.out.println("pacer helidon listening on " + server.port() + ", admin port " + agent.adminPort());
        Thread.currentThread().join();
    }

    static void handle(ServerRequest request, ServerResponse response, Agent agent, boolean record) {
        long beginNanoTime = System.nanoTime();
        try {
            String path = request.path().path();
            if (!Workload.isServedPath(path)) {
                response.status(Status.NOT_FOUND_404).send();
                return;
            }
            Workload workload = Workload.parse(request.query().rawValue());
            workload.perform();
            response.header(HeaderNames.CONTENT_TYPE, "text/plain").send(workload.body(path));
        } finally {
            if (record) {
                agent.recordNanos(System.nanoTime() - beginNanoTime);
            }
        }
    }
}
