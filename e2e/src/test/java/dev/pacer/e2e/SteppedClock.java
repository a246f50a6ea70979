package dev.pacer.e2e;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until the test moves it: a reconcile's "now", chosen. */
final class SteppedClock extends Clock {
    private Instant now;

    SteppedClock(Instant start) {
        this.now = start;
    }

    void set(Instant at) {
        now = at;
    }

    void advance(Duration by) {
        now = now.plus(by);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
