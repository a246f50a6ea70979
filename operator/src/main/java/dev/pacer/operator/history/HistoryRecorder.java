package dev.pacer.operator.history;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.engine.history.Acknowledgement;
import dev.pacer.engine.history.ChangePointParameters;
import dev.pacer.engine.history.HistoryAnalysis;
import dev.pacer.engine.history.HistoryPoint;
import dev.pacer.engine.history.SeriesHistory;
import dev.pacer.engine.history.SeriesKey;
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
 * {@code PACER_HISTORY_PASSWORD} (never logged), {@code PACER_HISTORY_ALL_RUNS} ({@code true} or {@code false}),
 * {@code PACER_HISTORY_CONFIRM_RUNS} (later runs that confirm a change; 5 by default).
 */
public final class HistoryRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryRecorder.class);
    /** The label that opts a run into the history when not every run is recorded. */
    public static final String LABEL = "pacer.dev/history";
    /**
     * How often the acknowledgements are read again, when the metrics or a schedule ask: one made with
     * {@code pacer history --acknowledge} stops alerting within this time, without waiting for the series' next run.
     */
    public static final Duration ACKNOWLEDGEMENTS_READ_EVERY = Duration.ofSeconds(30);

    /** Where to and which runs. */
    public record Settings(String jdbcUrl, String user, String password, boolean allRuns, int confirmRuns) {
        public Settings(String jdbcUrl, String user, String password, boolean allRuns) {
            this(jdbcUrl, user, password, allRuns, ChangePointParameters.DEFAULTS.confirmRuns());
        }

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
            String confirm = env.getOrDefault("PACER_HISTORY_CONFIRM_RUNS", Integer.toString(ChangePointParameters.DEFAULTS.confirmRuns())).strip();
            if (!confirm.matches("[1-9][0-9]{0,2}")) {
                throw new IllegalArgumentException("PACER_HISTORY_CONFIRM_RUNS must be a number of runs, 1 to 999, was '" + confirm + "'");
            }
            return new Settings(url, env.getOrDefault("PACER_HISTORY_USER", "pacer").strip(), env.get("PACER_HISTORY_PASSWORD"),
                    Boolean.parseBoolean(all), Integer.parseInt(confirm));
        }

        @Override
        public String toString() {
            return jdbcUrl + " as " + user + (allRuns ? ", every run" : ", runs labelled " + LABEL + "=true") + ", a change confirmed by "
                    + confirmRuns + " later runs";
        }
    }

    /** What recording a run gave: a problem (nothing recorded), or its series analysed again with every run. */
    public record Recording(String problem, SeriesHistory series) {
        static final Recording NOTHING = new Recording(null, null);

        /** The confirmed regressions of the run's series nobody acknowledged. */
        public List<SeriesHistory.Change> alerting() {
            return series == null ? List.of() : series.alerting();
        }
    }

    private final Settings settings;
    private final HistoryAnalysis analysis;
    private final Map<String, SeriesHistory> latest = new ConcurrentHashMap<>();
    /** Each recorded run's series, by source: asked by the schedules for their runs at every reconcile. */
    private final Map<String, String> seriesBySource = new ConcurrentHashMap<>();
    /**
     * Finished runs the database does not hold (Invalid, or not opted in): a schedule asks only about finished runs,
     * recorded (or not) before their final status, so the answer stands and is not asked again at every reconcile.
     */
    private final Set<String> notRecorded = ConcurrentHashMap.newKeySet();
    private final Clock clock;
    private Instant acknowledgementsReadAt = Instant.MIN;
    private HistoryStore store;

    public HistoryRecorder(Settings settings) {
        this(settings, Clock.systemUTC());
    }

    public HistoryRecorder(Settings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.analysis = new HistoryAnalysis(ChangePointParameters.DEFAULTS.withConfirmRuns(settings.confirmRuns()));
    }

    /** Whether this run is one the history keeps. */
    public boolean wants(BenchmarkRun run) {
        return settings.allRuns() || "true".equals(run.getMetadata().getLabels() == null ? null : run.getMetadata().getLabels().get(LABEL));
    }

    /**
     * Each series as the last run recorded in it left it, its acknowledgements read again when
     * {@link #ACKNOWLEDGEMENTS_READ_EVERY} has passed: what the metrics say.
     */
    public Collection<SeriesHistory> series() {
        refreshAcknowledgements();
        return latest.values();
    }

    /**
     * Reads the acknowledgements again, at most once per {@link #ACKNOWLEDGEMENTS_READ_EVERY}, and marks the changes
     * of every series held with them (in the table {@code changes} too); the runs are not analysed again. A database
     * that does not answer leaves the series as they were.
     */
    public synchronized void refreshAcknowledgements() {
        Instant now = clock.instant();
        if (latest.isEmpty() || now.isBefore(acknowledgementsReadAt.plus(ACKNOWLEDGEMENTS_READ_EVERY))) {
            return;
        }
        acknowledgementsReadAt = now;
        try {
            List<Acknowledgement> acknowledgements = store().acknowledgements();
            for (SeriesHistory series : List.copyOf(latest.values())) {
                SeriesHistory marked = series.acknowledgedBy(acknowledgements);
                if (!marked.changes().equals(series.changes())) {
                    store().replaceChanges(marked);
                    latest.put(series.key().id(), marked);
                    LOG.info("series {} {}: acknowledgements read again, {} change(s) alerting", series.key().id(), series.key().label(),
                            marked.alerting().size());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("the history's database ({}): acknowledgements not read again: {}", settings.jdbcUrl(), e.getMessage());
            forgetStore();
        }
    }

    /**
     * Records the run once (by namespace, name and uid), then analyses its series again with every run recorded in it
     * and the acknowledgements; a problem is said for the run's events.
     */
    public synchronized Recording record(BenchmarkRun run, ResultDocument document, Map<String, String> files) {
        if (!wants(run)) {
            return Recording.NOTHING;
        }
        String source = source(run);
        String notAPoint = HistoryPoint.reasonNotAPoint(document);
        if (notAPoint != null) {
            LOG.info("run {}: not recorded in the history: {}", source, notAPoint);
            return Recording.NOTHING;
        }
        try {
            RecordedRun recorded = RecordedRun.of(document, files, source);
            boolean fresh = store().record(recorded);
            SeriesKey key = recorded.point().series();
            seriesBySource.put(source, key.id());
            SeriesHistory series = analysis.analyseSeries(store().points(key.id()), store().acknowledgements());
            store().replaceChanges(series);
            latest.put(key.id(), series);
            LOG.info("run {}: {} the history (series {} {}: {} runs, {} change(s), {} alerting)", source, fresh ? "recorded in" : "already in",
                    key.id(), key.label(), series.points().size(), series.changes().size(), series.alerting().size());
            return new Recording(null, series);
        } catch (IOException e) {
            return new Recording(e.getMessage(), null);
        } catch (RuntimeException e) {
            forgetStore();
            return new Recording("the history's database (" + settings.jdbcUrl() + "): " + e.getMessage(), null);
        }
    }

    /** The database, opened at the first use and again after a failure closed it. */
    private HistoryStore store() {
        if (store == null) {
            store = HistoryStore.open(settings.jdbcUrl(), settings.user(), settings.password());
        }
        return store;
    }

    /** After a failure: closed, and opened again at the next use. */
    private void forgetStore() {
        if (store != null) {
            store.close();
            store = null;
        }
    }

    private static String source(BenchmarkRun run) {
        return run.getMetadata().getNamespace() + "/" + run.getMetadata().getName() + "/" + run.getMetadata().getUid();
    }

    /**
     * The series a finished run is a point of, as its last recorded run left it (analysed again from the database
     * after a restart); empty when the run is not in the history or the database cannot be read.
     */
    public synchronized Optional<SeriesHistory> seriesOf(BenchmarkRun run) {
        String source = source(run);
        try {
            String id = seriesBySource.get(source);
            if (id == null) {
                if (notRecorded.contains(source)) {
                    return Optional.empty();
                }
                Optional<String> found = store().seriesOf(source);
                if (found.isEmpty()) {
                    notRecorded.add(source);
                    return Optional.empty();
                }
                id = found.get();
                seriesBySource.put(source, id);
            }
            SeriesHistory series = latest.get(id);
            if (series == null) {
                series = analysis.analyseSeries(store().points(id), store().acknowledgements());
                latest.put(id, series);
            }
            return Optional.of(series);
        } catch (RuntimeException e) {
            LOG.warn("the history's database ({}): {}", settings.jdbcUrl(), e.getMessage());
            forgetStore();
            return Optional.empty();
        }
    }

    /** The sentence of a regression, for the run's event. */
    public static String sentence(SeriesHistory series, SeriesHistory.Change change) {
        return String.format(Locale.ROOT, "series %s (%s): %s; acknowledge with pacer history --database ... --acknowledge %s:%s:%s",
                series.key().id(), series.key().label(), change.describe(), series.key().id(), change.figure(), change.firstRun());
    }
}
