package dev.pacer.loadgen;

import java.util.Deque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Pairs requests that are due with idle connections, one request per connection at a time (HTTP/1.1 without
 * pipelining), first come first served, from any thread and without a lock: the pacing thread offers requests, the
 * threads that complete responses give their connections back, and whichever of them finds both a request waiting and a
 * connection idle sends the one on the other, at once, on its own thread. A request takes the connection idle longest
 * (round robin: every connection carries its share in turn) or, asked so, the one released last (a few connections
 * carry the load and stay warm in the client's caches; the others stay idle).
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

    private final Deque<C> idle = new ConcurrentLinkedDeque<>();
    /** Idle connections are taken from the front: released ones join the back (round robin) or the front (last used first). */
    private final boolean lastUsedFirst;
    private final Queue<R> waiting = new ConcurrentLinkedQueue<>();
    private final Predicate<C> open;
    private final Consumer<C> replace;
    private final Dispatcher<C, R> dispatcher;

    /**
     * @param open    whether a connection may still carry a request
     * @param replace told of a connection found closed, to open another in its place ({@link #release} it once open)
     */
    ConnectionRing(Predicate<C> open, Consumer<C> replace, Dispatcher<C, R> dispatcher) {
        this(open, replace, dispatcher, false);
    }

    /**
     * @param lastUsedFirst a request takes the connection released last (a few connections carry the load, the others
     *                      stay idle) rather than the one idle longest (every connection in turn)
     */
    ConnectionRing(Predicate<C> open, Consumer<C> replace, Dispatcher<C, R> dispatcher, boolean lastUsedFirst) {
        this.lastUsedFirst = lastUsedFirst;
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
        if (lastUsedFirst) {
            idle.offerFirst(connection);
        } else {
            idle.offerLast(connection);
        }
        pair();
    }

    /**
     * Hands every request waiting now to {@code failed}: no connection can be opened (the server is gone), and they
     * fail as they would on a connect of their own. Requests offered after this wait for the next connection.
     */
    void failWaiting(Consumer<R> failed) {
        failWaiting(request -> true, failed);
    }

    /** Hands the requests waiting now that {@code which} picks to {@code failed}; each once, even if a connection frees meanwhile. */
    void failWaiting(Predicate<R> which, Consumer<R> failed) {
        for (R request : waiting) {
            if (which.test(request) && waiting.remove(request)) {   // removed here, or taken to be sent: never both
                failed.accept(request);
            }
        }
    }

    /** Removes the idle connections found closed, each handed to {@code replace}: none is left to pile up unseen. */
    void pruneClosed() {
        idle.removeIf(connection -> {
            if (open.test(connection)) {
                return false;
            }
            replace.accept(connection);
            return true;
        });
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
                idle.offerFirst(connection);   // another thread took the request: back where it was taken, look again
                continue;
            }
            dispatcher.dispatch(connection, request);
        }
    }

    private C takeIdle() {
        for (C connection = idle.pollFirst(); connection != null; connection = idle.pollFirst()) {
            if (open.test(connection)) {
                return connection;
            }
            replace.accept(connection);
        }
        return null;
    }
}
