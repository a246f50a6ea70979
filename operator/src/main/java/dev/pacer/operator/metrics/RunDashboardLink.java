package dev.pacer.operator.metrics;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The address of the run dashboard ({@code dashboards/pacer-run.json}) opened on one run: its namespace and name
 * selected, and the time range set to the run's own (Grafana takes a time range from the address only, never from a
 * query). The range starts a little before the load and ends a minute after the window, when the results are
 * published; the dashboard's stat panels read them there.
 */
public final class RunDashboardLink {
    /** The run dashboard's uid and slug, as in {@code dashboards/pacer-run.json}. */
    public static final String PATH = "/d/pacer-run/run";
    static final long BEFORE_LOAD_MS = 10_000;
    static final long AFTER_WINDOW_MS = 60_000;

    private RunDashboardLink() {
    }

    /**
     * @param grafana         Grafana's address, without a trailing slash
     * @param loadStartEpochMs when the clients start (the warm-up included)
     * @param windowEndEpochMs the end of the measured window
     */
    public static String of(URI grafana, String namespace, String name, long loadStartEpochMs, long windowEndEpochMs) {
        return grafana + PATH + "?var-namespace=" + encode(namespace) + "&var-run=" + encode(name)
                + "&from=" + (loadStartEpochMs - BEFORE_LOAD_MS) + "&to=" + (windowEndEpochMs + AFTER_WINDOW_MS);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
