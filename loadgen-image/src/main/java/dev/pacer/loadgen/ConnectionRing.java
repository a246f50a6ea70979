package dev.pacer.loadgen;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Pairs requests that are due with idle connections, one request per connection at a time (HTTP/1.1 without
 * pipelining), first come first served, from any thread and without a lock: the pacing thread offers requests, the
 * threads that complete responses give their connections back, and whichever of them finds both a request waiting and a
 * connection idle sends the one on the other, at once, on its own thread.
 * <p>Each side publishes what it brings, then looks for the other: a request and a connection offered at the same
 * moment by two threads are always paired by one of them. A connection found closed when taken is handed to
 * {@code replace} and never used again.
 *
 * @param <C> a connection
 * @param <R> a request waiting for one
 */
final class ConnectionRing<C, R> {
    /** Sends a request on a connection that is now its own until the response completes ({@link #release}). */
    @FunctionalInterface
    interface Dispatcher<C, R> {
        void dispatch(C connection, R request);
    }

    private final Queue<C> idle = new ConcurrentLinkedQueue<>();
    private final Queue<R> waiting = new ConcurrentLinkedQueue<>();
    private final Predicate<C> open;
    private final Consumer<C> replace;
    private final Dispatcher<C, R> dispatcher;

    /**
     * @param open    whether a connection may still carry a request
     * @param replace told of a connection found closed, to open another in its place ({@link #release} it once open)
     */
    ConnectionRing(Predicate<C> open, Consumer<C> replace, Dispatcher<C, R> dispatcher) {
        this.open = open;
        this.replace = replace;
        this.dispatcher = dispatcher;
    }

    /** A request is due: sent now on an idle connection, or as soon as one is released (after those waiting before it). */
    void offer(R request) {
        if (waiting.isEmpty()) {
            C connection = takeIdle();
            if (connection != null) {
                dispatcher.dispatch(connection, request);
                return;
            }
        }
        waiting.offer(request);
        pair();
    }

    /** A connection is idle again (its response completed), or newly opened. */
    void release(C connection) {
        idle.offer(connection);
        pair();
    }

    /**
     * Hands every request waiting now to {@code failed}: no connection can be opened (the server is gone), and they
     * fail as they would on a connect of their own. Requests offered after this wait for the next connection.
     */
    void failWaiting(Consumer<R> failed) {
        for (R request = waiting.poll(); request != null; request = waiting.poll()) {
            failed.accept(request);
        }
    }

    /** Requests waiting for a connection now. */
    int waiting() {
        return waiting.size();
    }

    private void pair() {
        while (!waiting.isEmpty()) {
            C connection = takeIdle();
            if (connection == null) {
                return;   // the thread that releases the next connection pairs it
            }
            R request = waiting.poll();
            if (request == null) {
                idle.offer(connection);   // another thread took the request: look again
                continue;
            }
            dispatcher.dispatch(connection, request);
        }
    }

    private C takeIdle() {
        for (C connection = idle.poll(); connection != null; connection = idle.poll()) {
            if (open.test(connection)) {
                return connection;
            }
            replace.accept(connection);
        }
        return null;
    }
}
