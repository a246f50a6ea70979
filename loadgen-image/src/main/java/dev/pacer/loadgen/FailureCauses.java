package dev.pacer.loadgen;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests that got no response, counted by their cause as a person reads it (the exception's type and message), so
 * that a run's errors say why. Causes whose message varies (an address, a number) would fill any table: past
 * {@link #MAX_CAUSES} distinct ones, the others count under {@link #OTHER}. Counted on whichever thread ends a request
 * (a selector's, the timeout sweep's, the reconnecting one's).
 */
final class FailureCauses {
    static final int MAX_CAUSES = 8;
    static final String OTHER = "other causes";
    private static final int MAX_CAUSE_CHARS = 200;

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    void count(Throwable failure) {
        String cause = describe(failure);
        LongAdder count = counts.get(cause);
        if (count == null) {
            // a few more than the bound when threads race on new causes: harmless
            count = counts.computeIfAbsent(counts.size() < MAX_CAUSES ? cause : OTHER, k -> new LongAdder());
        }
        count.increment();
    }

    /** The causes, most frequent first. */
    Map<String, Long> byCount() {
        Map<String, Long> sorted = new LinkedHashMap<>();
        counts.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue().sum()))
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    /** A request's cause as counted: {@link #describeFully}, its first line only, at most 200 characters. */
    static String describe(Throwable failure) {
        String text = describeFully(failure).lines().findFirst().orElse("");
        return text.length() <= MAX_CAUSE_CHARS ? text : text.substring(0, MAX_CAUSE_CHARS - 1) + "…";
    }

    /** The type and message of what went wrong, through a future's wrapper. */
    static String describeFully(Throwable failure) {
        if (failure == null) {
            return "no cause given";
        }
        Throwable cause = failure instanceof ExecutionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
}
