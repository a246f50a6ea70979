package dev.pacer.loadgen;

import java.io.IOException;
import java.nio.channels.Selector;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.pacer.loadgen.pacing.PacingLoop;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SelectorManager;

/**
 * Jetty's client connector with one selector that may also pace: between its selects it sends what is due, and it waits
 * in its select until the next wake-up or a response, whichever comes first ({@link #pace}). Sends and responses on one
 * thread, as wrk2 runs them, without the hand-off between a pacing thread and the selector's. Both shards use it.
 */
final class PacingClientConnector extends ClientConnector {
    private volatile PacingSelector selector;
    /** The loop the selector's thread runs, or null. */
    private volatile SelectorPacing pacing;

    PacingClientConnector() {
        setSelectors(1);
    }

    @Override
    protected SelectorManager newSelectorManager() {
        return new ClientSelectorManager(getExecutor(), getScheduler(), getSelectors()) {
            @Override
            protected ManagedSelector newSelector(int id) {
                PacingSelector made = new PacingSelector(this, id);
                selector = made;
                return made;
            }
        };
    }

    /**
     * Runs the loop on the selector's thread, between its selects, from now.
     *
     * @return the loop's account once it ended; empty when the connector has not started its selector
     */
    Optional<CompletableFuture<PacingLoop.Result>> pace(PacingLoop loop) {
        PacingSelector on = selector;
        if (on == null || !isRunning()) {
            return Optional.empty();
        }
        SelectorPacing paced = new SelectorPacing(loop);
        pacing = paced;
        on.getSelector().wakeup();   // out of a select without a timeout: the loop's first wake-up is now
        return Optional.of(paced.result);
    }

    /** The shard closes: a loop its selector paces would never wake again, and the run must not wait for it. */
    void abandonPacing() {
        SelectorPacing paced = pacing;
        if (paced != null) {
            paced.result.completeExceptionally(new IllegalStateException("shard closed while its selector paced"));
        }
    }

    private final class PacingSelector extends ManagedSelector {
        PacingSelector(SelectorManager manager, int id) {
            super(manager, id);
        }

        @Override
        protected int nioSelect(Selector nio, boolean now) throws IOException {
            SelectorPacing paced = pacing;
            if (now || paced == null) {
                return now ? nio.selectNow() : nio.select();
            }
            long waitMs = paced.beforeSelect();
            if (waitMs < 0) {
                pacing = null;   // the loop has ended
                return nio.select();
            }
            int selected = waitMs == 0 ? nio.selectNow() : nio.select(waitMs);
            paced.loop.waitEnded();   // Jetty's work on what was selected follows: not the loop's stall (beforeSelect)
            return selected;
        }

        /** Jetty has closed this selector for good: a loop it paced would never wake again, and the run must not wait for it. */
        @Override
        protected void onSelectFailed(Throwable cause) {
            super.onSelectFailed(cause);
            SelectorPacing paced = pacing;
            if (paced != null) {
                paced.result.completeExceptionally(new IllegalStateException("the selector that paced this shard failed", cause));
            }
        }
    }

    /**
     * A pacing loop run by the selector's thread, between its selects: sends and responses on one thread, as wrk2 runs
     * them, without the hand-off between a pacing thread and the selector's. A select that returns before the loop's
     * next wake-up brought responses: the loop is not woken for it, and its interval still runs from the wake-up that
     * sent. The select waits in whole milliseconds, so a wake-up comes up to a millisecond late: the interval must be
     * at least that ({@link LoadRun#SELECTOR_PACING_MIN_INTERVAL_NANOS}).
     */
    private static final class SelectorPacing {
        final PacingLoop loop;
        final CompletableFuture<PacingLoop.Result> result = new CompletableFuture<>();
        private boolean woken;
        private long wakeAtNanos;   // the loop's next wake-up, once it woke

        SelectorPacing(PacingLoop loop) {
            this.loop = loop;
        }

        /** @return how long the select may wait, in ms: 0 not at all, -1 for good (the loop has ended) */
        long beforeSelect() {
            try {
                loop.resumed();
                long now = System.nanoTime();
                if (!woken || now - wakeAtNanos >= 0) {
                    woken = true;
                    long wakeAt = loop.wakeUp();
                    if (wakeAt == PacingLoop.DONE) {
                        result.complete(loop.finish());
                        return -1;
                    }
                    long stopAt = loop.stopAtNanos();
                    wakeAtNanos = wakeAt - stopAt > 0 ? stopAt : wakeAt;
                    now = System.nanoTime();
                }
                long waitNanos = wakeAtNanos - now;
                if (waitNanos <= 0) {
                    return 0;
                }
                long waitMs = Math.ceilDiv(waitNanos, TimeUnit.MILLISECONDS.toNanos(1));
                loop.waiting(TimeUnit.MILLISECONDS.toNanos(waitMs));   // what the select may sleep: no stall up to it
                return waitMs;
            } catch (Throwable failure) {   // never into Jetty's select loop: it would close the selector
                result.completeExceptionally(failure);
                return -1;
            }
        }
    }
}
