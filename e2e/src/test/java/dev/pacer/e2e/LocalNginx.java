package dev.pacer.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** nginx as the server of a local run: one worker answering "ok", its config written beside the spec. */
final class LocalNginx {
    /** The spec's {@code server.command}: nginx on the config {@link #writeConfig} wrote, its pid and log in the run's directory. */
    static final String COMMAND = "[nginx, -p, \"${RUN_DIR}\", -c, \"${SPEC_DIR}/nginx.conf\", -g, "
            + "\"pid ${RUN_DIR}/nginx.pid; error_log ${RUN_DIR}/logs/nginx.log;\"]";

    /** A log format of each request's connection serial and its count on that connection, for {@code access_log}. */
    static final String CONNECTIONS_LOG_FORMAT = "log_format connections '$connection $connection_requests';";

    /**
     * Writes {@code nginx.conf} into the spec's directory.
     *
     * @param listenParameters after the address in {@code listen}, e.g. {@code " http2"}, or empty
     * @param httpDirectives   the {@code http} block's own, e.g. its log and keep-alive limits
     */
    static void writeConfig(Path specDirectory, int port, int workerConnections, String listenParameters, String httpDirectives)
            throws IOException {
        Files.writeString(specDirectory.resolve("nginx.conf"), """
                daemon off;
                master_process off;
                worker_processes 1;
                events { worker_connections %d; }
                http {
                %s
                  client_body_temp_path /tmp;
                  server { listen 127.0.0.1:%d%s; location / { return 200 "ok"; } }
                }
                """.formatted(workerConnections, httpDirectives.indent(2).stripTrailing(), port, listenParameters));
    }

    private LocalNginx() {
    }
}
