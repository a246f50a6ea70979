package dev.pacer.loadgen;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Opens connections in place of closed ones, for one shard, whatever its protocol. A closed connection that carried
 * requests is replaced once, at once, in the background. When that open fails (the server refuses, or closes the
 * connection before it is ready, or a connect or handshake times out), and when a connection closed before carrying any
 * request, the replacement is owed to the shard's one retry loop: a server gone, or one that accepts and closes at once,
 * costs one connect per {@value #REOPEN_DELAY_MS} ms, never one loop of connects per connection.
 *
 * @param <C> a connection
 */
final class Reconnector<C> {
    /** Waits between attempts to reopen a connection the server refuses. */
    static final long REOPEN_DELAY_MS = 100;

    private final Supplier<CompletableFuture<C>> open;
    private final Consumer<C> opened;
    private final Consumer<Throwable> openFailed;
    private final BooleanSupplier running;
    private final Scheduler scheduler;
    private final Executor executor;
    /** Replacements the server refused, to be opened by the one retry loop, which runs while {@code retrying}. */
    private final AtomicInteger owed = new AtomicInteger();
    private final AtomicBoolean retrying = new AtomicBoolean();
    private volatile Throwable lastRefusal;

    /**
     * @param open       opens a connection (over TLS: completes once its handshake succeeded)
     * @param opened     told of each replacement once it is open, to carry requests
     * @param openFailed told of each failed open, with why: requests waiting fail when no connection is left to carry them
     * @param running    whether the shard still runs: nothing is opened once it stops
     */
    Reconnector(Supplier<CompletableFuture<C>> open, Consumer<C> opened, Consumer<Throwable> openFailed, BooleanSupplier running,
                Scheduler scheduler, Executor executor) {
        this.open = open;
        this.opened = opened;
        this.openFailed = openFailed;
        this.running = running;
        this.scheduler = scheduler;
        this.executor = executor;
    }

    /**
     * Replaces a closed connection: at once when it carried requests, or through the retry loop when it closed before
     * carrying any, so that a server that accepts and closes at once is not reconnected to in a loop.
     */
    void replace(boolean carried) {
        if (carried) {
            inBackground();
        } else {
            owe();
        }
    }

    private void reopen() {
        if (!running.getAsBoolean()) {
            return;
        }
        if (retrying.get()) {   // the server refused the last open: the retry loop opens this one too, once it can
            owe();
            openFailed.accept(lastRefusal);
            return;
        }
        open.get().whenComplete((connection, failure) -> {
            if (failure == null) {
                opened.accept(connection);
            } else {
                lastRefusal = failure;
                owe();
                openFailed.accept(failure);
            }
        });
    }

    /** One more replacement for the retry loop; it starts unless it runs already. */
    private void owe() {
        owed.incrementAndGet();
        if (retrying.compareAndSet(false, true)) {
            later(this::retryOwed, REOPEN_DELAY_MS);
        }
    }

    /**
     * The one retry loop while opens fail: one open every {@value #REOPEN_DELAY_MS} ms, and once one
     * succeeds, every replacement still owed, each on its own. Each replacement is either owed or being opened, never
     * both, so each closed connection is replaced once. The loop's own state is settled before anything it calls may fail.
     */
    private void retryOwed() {
        if (!running.getAsBoolean()) {
            return;
        }
        if (owed.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            retrying.set(false);
            if (owed.get() > 0 && retrying.compareAndSet(false, true)) {   // owed meanwhile
                later(this::retryOwed, REOPEN_DELAY_MS);
            }
            return;
        }
        open.get().whenComplete((connection, failure) -> {
            if (failure != null) {
                owed.incrementAndGet();
                later(this::retryOwed, REOPEN_DELAY_MS);
                lastRefusal = failure;
                openFailed.accept(failure);
                return;
            }
            try {
                opened.accept(connection);
            } finally {
                retrying.set(false);
                for (int n = owed.getAndSet(0); n > 0; n--) {
                    inBackground();
                }
            }
        });
    }

    private void later(Runnable task, long delayMs) {
        try {
            scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // the shard is closing: nothing to replace
        }
    }

    private void inBackground() {
        try {
            executor.execute(this::reopen);
        } catch (RejectedExecutionException stopping) {
            // the shard is closing: nothing to replace
        }
    }
}
