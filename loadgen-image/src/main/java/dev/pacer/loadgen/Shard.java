package dev.pacer.loadgen;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.pacer.contract.RunRequest;
import dev.pacer.loadgen.pacing.PacingLoop;
import org.mortbay.jetty.load.generator.Resource;

/**
 * One shard of a client: its connections and one selector, sending the requests its pacing loop hands it. HTTP/1.1
 * goes through {@link Http1Shard} (Jetty's I/O layer, parser and pre-encoded requests: what a request costs is a write
 * and a parse), in cleartext or over TLS; h2c and h2 through {@link Http2Shard} (the same I/O layer, HTTP/2 frames
 * of pacer's own).
 */
interface Shard {
    /** Told of every request as it goes to the wire and as it ends, on a selector thread or the pacing thread. */
    interface Completions {
        void begun();

        /**
         * A request the server refused unprocessed goes to the wire once more (HTTP/2: a stream above a GOAWAY's last).
         * Its {@link #begun} and {@link #sendLag} were told at its first send and are not told again.
         */
        void resent();

        /**
         * How late the client itself was with a request it took: from its intended time to its hand-off by the pacing
         * loop, and on to the wire when it waited for a connection that was opened only after it was due (a
         * reconnect). A wait for a connection busy with an earlier response is the server's, not counted here.
         */
        void sendLag(long lagNanos);

        /**
         * @param status     the response's status; 0 when there was none (see {@code failure})
         * @param failure    why there was no response, or null
         * @param begunNanos when it went to the wire; 0 when it never did
         */
        void completed(int status, Throwable failure, long intendedNanos, long begunNanos);

        /** A TLS handshake succeeded, this long after its TCP connection was made. */
        void handshake(long nanos);
    }

    static Shard of(int index, RunRequest spec, Resource resource, int connections, int maxQueued, Completions completions) {
        return RunRequest.H2C.equals(spec.httpVersion()) || RunRequest.H2.equals(spec.httpVersion())
                ? new Http2Shard(index, spec, resource, connections, maxQueued, completions)
                : new Http1Shard(index, spec, resource, connections, maxQueued, completions);
    }

    /** The request every shard sends, as the load generator library describes one. */
    static Resource resource(RunRequest spec) {
        Resource resource = new Resource(spec.path()).method(spec.method());
        if (spec.request() != null && spec.request().headers() != null) {
            for (Map.Entry<String, String> header : spec.request().headers().entrySet()) {
                resource.requestHeader(header.getKey(), header.getValue());
            }
        }
        return resource;
    }

    /** Starts the shard and opens its connections; fails when they cannot all be opened in time. */
    void connect(long timeoutMs) throws Exception;

    /**
     * Takes a request, unless the shard already holds {@code maxQueued} requests not yet answered: then it refuses it at
     * once (never sent, and counted so).
     *
     * @return whether the request was taken
     */
    boolean trySend(long intendedNanos, long handedNanos);

    /**
     * Runs the loop on the shard's own selector thread, between its selects, when the shard can: from now,
     * and in place of a pacing thread.
     *
     * @return the loop's account once it ended; empty when the shard cannot
     */
    default Optional<CompletableFuture<PacingLoop.Result>> paceOnSelector(PacingLoop loop) {
        return Optional.empty();
    }

    /** Stops the shard on a thread of its own: a long queue left by an overloaded run takes a while. */
    void closeInBackground();

    /**
     * A request's send lag as it goes to the wire: late until its hand-off, and until it went out when the connection
     * it went out on was opened only after the hand-off (it waited for the client to reconnect).
     *
     * @param reopenedAtNanos when that connection was opened in place of a closed one, if it was
     */
    static long sendLagNanos(long intendedNanos, long handedNanos, long begunNanos, Long reopenedAtNanos) {
        boolean waitedForReconnect = reopenedAtNanos != null && reopenedAtNanos > handedNanos;
        return (waitedForReconnect ? begunNanos : handedNanos) - intendedNanos;
    }
}
