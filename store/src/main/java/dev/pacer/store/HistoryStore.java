package dev.pacer.store;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.pacer.api.Verdict;
import dev.pacer.engine.history.Acknowledgement;
import dev.pacer.engine.history.Figure;
import dev.pacer.engine.history.HistoryPoint;
import dev.pacer.engine.history.SeriesHistory;
import dev.pacer.engine.history.SeriesKey;
import dev.pacer.engine.json.DocumentJson;
import dev.pacer.engine.report.RunManifest;
import org.HdrHistogram.Histogram;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;

/**
 * The history in PostgreSQL: the adapter between {@link RecordedRun}s and the engine's pure analysis
 * ({@code HistoryAnalysis}), which reads {@link #points()} and {@link #acknowledgements()} here as the CLI reads them
 * from results directories. Opening migrates the schema (Flyway, {@code db/migration}); connections come from a pool.
 */
public final class HistoryStore implements AutoCloseable {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };
    /** Connections the pool holds at most: one writer at a time, a reader or two. */
    static final int POOL_SIZE = 4;
    /** A database that does not answer fails a recording in this time, not the default 30 s (an operator waits on it). */
    static final long CONNECT_TIMEOUT_MS = 5_000;

    private final HikariDataSource dataSource;
    private final Jdbi jdbi;

    private HistoryStore(HikariDataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbi = Jdbi.create(dataSource);
    }

    /**
     * Connects ({@code jdbc:postgresql://host:5432/db}) and migrates the schema to this version of pacer's.
     * The password is handed to the driver only, never logged.
     */
    public static HistoryStore open(String jdbcUrl, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setPoolName("pacer-history");
        config.setConnectionTimeout(CONNECT_TIMEOUT_MS);
        HikariDataSource dataSource = new HikariDataSource(config);
        try {
            Flyway.configure().dataSource(dataSource).locations("classpath:db/migration").load().migrate();
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
        return new HistoryStore(dataSource);
    }

    /** The schema's version, as Flyway applied it. */
    public String schemaVersion() {
        return jdbi.withHandle(h -> h.createQuery("SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank DESC LIMIT 1")
                .mapTo(String.class).one());
    }

    /** Records a run once: a source already recorded is left as it is. Whether it was new. */
    public boolean record(RecordedRun run) {
        HistoryPoint point = run.point();
        RunManifest.Role server = run.server();
        return jdbi.inTransaction(h -> {
            h.createUpdate("INSERT INTO series (id, label, key) VALUES (:id, :label, CAST(:key AS jsonb)) ON CONFLICT (id) DO NOTHING")
                    .bind("id", point.series().id()).bind("label", point.series().label()).bind("key", json(point.series().fields())).execute();
            Optional<Long> id = h.createQuery("""
                            INSERT INTO runs (source, run, series_id, window_end, end_epoch_ms, spec_digest, server_image, server_digest, node,
                                              kernel, jvm, pacer_version, verdict, p99_integral_micros, max_integral_micros, achieved_rate, errors,
                                              spectrum_micros, result)
                            VALUES (:source, :run, :series, :windowEnd, :end, :specDigest, :image, :digest, :node, :kernel, :jvm, :pacer, :verdict,
                                    :p99, :max, :rate, :errors, :spectrum, CAST(:result AS jsonb))
                            ON CONFLICT (source) DO NOTHING RETURNING id""")
                    .bind("source", run.source()).bind("run", point.run()).bind("series", point.series().id())
                    .bind("windowEnd", OffsetDateTime.ofInstant(Instant.ofEpochMilli(point.endEpochMs()), ZoneOffset.UTC))
                    .bind("end", point.endEpochMs()).bind("specDigest", run.specDigest()).bind("image", point.serverImage())
                    .bind("digest", point.serverDigest()).bind("node", server == null ? null : server.node())
                    .bind("kernel", server == null ? null : server.kernel()).bind("jvm", server == null ? null : server.jvm())
                    .bind("pacer", run.document().manifest().pacerVersion()).bind("verdict", point.verdict().name())
                    .bind("p99", Math.round(point.figures().get(Figure.p99Integral))).bind("max", Math.round(point.figures().get(Figure.maxIntegral)))
                    .bind("rate", point.figures().get(Figure.achievedRate)).bind("errors", Math.round(point.figures().get(Figure.errors)))
                    .bind("spectrum", point.spectrumMicros()).bind("result", json(run.document().result()))
                    .mapTo(Long.class).findOne();
            id.ifPresent(runId -> run.histograms().forEach((name, bytes) ->
                    h.createUpdate("INSERT INTO run_histograms (run_id, name, histogram) VALUES (:run, :name, :histogram)")
                            .bind("run", runId).bind("name", name).bind("histogram", bytes).execute()));
            return id.isPresent();
        });
    }

    private static final String POINTS = """
            SELECT r.run, r.end_epoch_ms, r.server_image, r.server_digest, r.verdict, r.p99_integral_micros, r.max_integral_micros,
                   r.achieved_rate, r.errors, r.spectrum_micros, s.id, s.label, s.key::text AS key
            FROM runs r JOIN series s ON s.id = r.series_id""";

    /** Every recorded run as a point of its series. */
    public List<HistoryPoint> points() {
        return jdbi.withHandle(h -> h.createQuery(POINTS + " ORDER BY r.end_epoch_ms, r.run").map((rs, ctx) -> point(rs)).list());
    }

    /** The recorded runs of one series. */
    public List<HistoryPoint> points(String seriesId) {
        return jdbi.withHandle(h -> h.createQuery(POINTS + " WHERE s.id = :series ORDER BY r.end_epoch_ms, r.run").bind("series", seriesId)
                .map((rs, ctx) -> point(rs)).list());
    }

    private static HistoryPoint point(ResultSet rs) throws SQLException {
        Map<Figure, Double> figures = new EnumMap<>(Figure.class);
        figures.put(Figure.p99Integral, (double) rs.getLong("p99_integral_micros"));
        figures.put(Figure.maxIntegral, (double) rs.getLong("max_integral_micros"));
        figures.put(Figure.achievedRate, rs.getDouble("achieved_rate"));
        figures.put(Figure.errors, (double) rs.getLong("errors"));
        Array spectrum = rs.getArray("spectrum_micros");
        Double[] values = (Double[]) spectrum.getArray();
        double[] micros = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            micros[i] = values[i];
        }
        SeriesKey key;
        try {
            key = new SeriesKey(rs.getString("id"), rs.getString("label"), DocumentJson.MAPPER.readValue(rs.getString("key"), MAP));
        } catch (JsonProcessingException e) {
            throw new SQLException("series " + rs.getString("id") + ": its key is not JSON", e);
        }
        return new HistoryPoint(rs.getString("run"), rs.getLong("end_epoch_ms"), key, rs.getString("server_image"), rs.getString("server_digest"),
                Verdict.valueOf(rs.getString("verdict")), figures, micros);
    }

    /**
     * Replaces the changes kept for a series with those of its latest analysis, each described in words: the history
     * dashboard's annotations.
     */
    public void replaceChanges(SeriesHistory series) {
        Map<String, Long> ends = new HashMap<>();
        series.points().forEach(p -> ends.put(p.run(), p.endEpochMs()));
        jdbi.useTransaction(h -> {
            h.createUpdate("DELETE FROM changes WHERE series_id = :series").bind("series", series.key().id()).execute();
            for (SeriesHistory.Change change : series.changes()) {
                h.createUpdate("""
                                INSERT INTO changes (series_id, figure, percentile, first_run, at_epoch_ms, shift, shift_low, shift_high, status,
                                                     regression, acknowledged, description)
                                VALUES (:series, :figure, :percentile, :firstRun, :at, :shift, :low, :high, :status, :regression, :acknowledged,
                                        :description)
                                ON CONFLICT (series_id, figure, first_run) DO NOTHING""")
                        .bind("series", series.key().id()).bind("figure", change.figure().name()).bind("percentile", change.percentile())
                        .bind("firstRun", change.firstRun()).bind("at", ends.getOrDefault(change.firstRun(), 0L)).bind("shift", change.shift())
                        .bind("low", change.shiftLow()).bind("high", change.shiftHigh()).bind("status", change.status().name())
                        .bind("regression", change.regression()).bind("acknowledged", change.acknowledged())
                        .bind("description", change.describe()).execute();
            }
        });
    }

    /** The series a recorded run (by its source) is a point of. */
    public Optional<String> seriesOf(String source) {
        return jdbi.withHandle(h -> h.createQuery("SELECT series_id FROM runs WHERE source = :source").bind("source", source)
                .mapTo(String.class).findOne());
    }

    /** One merged histogram of a recorded run (by its source), e.g. "server" or "client-0.responseTime". */
    public Optional<Histogram> histogram(String source, String name) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT g.histogram FROM run_histograms g JOIN runs r ON r.id = g.run_id WHERE r.source = :source AND g.name = :name""")
                .bind("source", source).bind("name", name).mapTo(byte[].class).findOne()).map(RecordedRun::decompressed);
    }

    public List<Acknowledgement> acknowledgements() {
        return jdbi.withHandle(h -> h.createQuery("SELECT series_id, figure, first_run, note FROM acknowledgements ORDER BY at")
                .map((rs, ctx) -> new Acknowledgement(rs.getString("series_id"), Figure.valueOf(rs.getString("figure")),
                        rs.getString("first_run"), rs.getString("note"))).list());
    }

    public void acknowledge(Acknowledgement acknowledgement) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO acknowledgements (series_id, figure, first_run, note) VALUES (:series, :figure, :run, :note)
                        ON CONFLICT (series_id, figure, first_run) DO UPDATE SET note = EXCLUDED.note""")
                .bind("series", acknowledgement.series()).bind("figure", acknowledgement.figure().name())
                .bind("run", acknowledgement.firstRun()).bind("note", acknowledgement.note()).execute());
    }

    private static String json(Object value) {
        try {
            return DocumentJson.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
