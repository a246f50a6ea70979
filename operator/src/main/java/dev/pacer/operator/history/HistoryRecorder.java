package dev.pacer.operator.history;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.engine.history.HistoryPoint;
import dev.pacer.engine.report.ResultDocument;
import dev.pacer.store.HistoryStore;
import dev.pacer.store.RecordedRun;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records finished runs in the history's PostgreSQL (docs/history.md): every run when the chart says so
 * ({@code history.allRuns}), else the runs labelled {@value #LABEL}{@code : "true"}; a run whose figures are not the
 * server's (verdict Invalid) is not a point of any series and is left out. The database is opened at the
 * first run to record, and again after a failure: a database that is down fails no run, it is said in the run's events.
 *
 * <p>From the environment (the chart sets it from a Secret): {@code PACER_HISTORY_JDBC_URL}
 * ({@code jdbc:postgresql://host:5432/db}; unset: no history), {@code PACER_HISTORY_USER},
 * {@code PACER_HISTORY_PASSWORD} (never logged), {@code PACER_HISTORY_ALL_RUNS} ({@code true} or {@code false}).
 */
public final class HistoryRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryRecorder.class);
    /** The label that opts a run into the history when not every run is recorded. */
    public static final String LABEL = "pacer.dev/history";

    /** Where to and which runs. */
    public record Settings(String jdbcUrl, String user, String password, boolean allRuns) {
        /** {@code null} when PACER_HISTORY_JDBC_URL is unset: no history. */
        public static Settings fromEnvironment(Map<String, String> env) {
            String url = env.getOrDefault("PACER_HISTORY_JDBC_URL", "").strip();
            if (url.isEmpty()) {
                return null;
            }
            if (!url.startsWith("jdbc:postgresql://")) {
                throw new IllegalArgumentException("PACER_HISTORY_JDBC_URL must be jdbc:postgresql://HOST:PORT/DATABASE (the chart's "
                        + "history.database Secret, key jdbcUrl), was '" + url + "'");
            }
            String all = env.getOrDefault("PACER_HISTORY_ALL_RUNS", "true").strip();
            if (!all.equals("true") && !all.equals("false")) {
                throw new IllegalArgumentException("PACER_HISTORY_ALL_RUNS must be true or false, was '" + all + "'");
            }
            return new Settings(url, env.getOrDefault("PACER_HISTORY_USER", "pacer").strip(), env.get("PACER_HISTORY_PASSWORD"),
                    Boolean.parseBoolean(all));
        }

        @Override
        public String toString() {
            return jdbcUrl + " as " + user + (allRuns ? ", every run" : ", runs labelled " + LABEL + "=true");
        }
    }

    private final Settings settings;
    private HistoryStore store;

    public HistoryRecorder(Settings settings) {
        this.settings = settings;
    }

    /** Whether this run is one the history keeps. */
    public boolean wants(BenchmarkRun run) {
        return settings.allRuns() || "true".equals(run.getMetadata().getLabels() == null ? null : run.getMetadata().getLabels().get(LABEL));
    }

    /**
     * Records the run once (by namespace, name and uid); empty when done or not wanted, else what went wrong, for
     * the run's events.
     */
    public synchronized Optional<String> record(BenchmarkRun run, ResultDocument document, Map<String, String> files) {
        if (!wants(run)) {
            return Optional.empty();
        }
        String source = run.getMetadata().getNamespace() + "/" + run.getMetadata().getName() + "/" + run.getMetadata().getUid();
        String notAPoint = HistoryPoint.reasonNotAPoint(document);
        if (notAPoint != null) {
            LOG.info("run {}: not recorded in the history: {}", source, notAPoint);
            return Optional.empty();
        }
        try {
            RecordedRun recorded = RecordedRun.of(document, files, source);
            if (store == null) {
                store = HistoryStore.open(settings.jdbcUrl(), settings.user(), settings.password());
            }
            boolean fresh = store.record(recorded);
            LOG.info("run {}: {} the history ({} series {})", source, fresh ? "recorded in" : "already in", recorded.point().series().id(),
                    recorded.point().series().label());
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        } catch (RuntimeException e) {
            if (store != null) {
                store.close();
                store = null;   // opened again for the next run
            }
            return Optional.of("the history's database (" + settings.jdbcUrl() + "): " + e.getMessage());
        }
    }
}
