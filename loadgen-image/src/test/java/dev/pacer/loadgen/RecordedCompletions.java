package dev.pacer.loadgen;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** What a cleartext shard tells of its requests, kept for a test: each request's end, and how many went to the wire. */
final class RecordedCompletions implements Shard.Completions {
    record Done(int status, Throwable failure, long intendedNanos, long begunNanos) {
    }

    final ConcurrentLinkedQueue<Done> done = new ConcurrentLinkedQueue<>();
    final AtomicInteger begun = new AtomicInteger();
    final AtomicInteger sendLags = new AtomicInteger();
    final AtomicInteger resent = new AtomicInteger();

    @Override
    public void begun() {
        begun.incrementAndGet();
    }

    @Override
    public void resent() {
        resent.incrementAndGet();
    }

    @Override
    public void sendLag(long lagNanos) {
        sendLags.incrementAndGet();
    }

    @Override
    public void completed(int status, Throwable failure, long intendedNanos, long begunNanos) {
        done.add(new Done(status, failure, intendedNanos, begunNanos));
    }

    @Override
    public void handshake(long nanos) {
        throw new AssertionError("a handshake in cleartext");
    }
}
