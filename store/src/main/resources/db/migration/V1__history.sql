-- The history of finished runs (docs/history.md). One row per series (the runs of one comparable spec), one per
-- run with its identity and headline figures, its merged histograms beside it, and the changes people acknowledged.
CREATE TABLE series (
    id          text PRIMARY KEY,          -- SeriesKey.id: 12 hex digits of the key's SHA-256
    label       text NOT NULL,
    key         jsonb NOT NULL,
    first_seen  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE runs (
    id                   bigserial PRIMARY KEY,
    source               text NOT NULL UNIQUE,   -- namespace/name/uid on a cluster, the results directory locally
    run                  text NOT NULL,
    series_id            text NOT NULL REFERENCES series (id),
    window_end           timestamptz NOT NULL,
    end_epoch_ms         bigint NOT NULL,
    spec_digest          text NOT NULL,          -- SHA-256 of the effective spec (manifest.plan), canonical JSON
    server_image         text,
    server_digest        text,
    node                 text,
    kernel               text,
    jvm                  text,
    pacer_version        text,
    verdict              text NOT NULL,
    p99_integral_micros  bigint NOT NULL,
    max_integral_micros  bigint NOT NULL,
    achieved_rate        double precision NOT NULL,
    errors               bigint NOT NULL,
    spectrum_micros      double precision[] NOT NULL,   -- p50, p90, p99, p99.9, p99.99, max
    result               jsonb NOT NULL,               -- the run's result, as status.result holds it
    recorded_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_by_series ON runs (series_id, end_epoch_ms);

-- Each histogram series of the run (server, server.probe.service, client-0.responseTime, ...) merged over the
-- measured window: HdrHistogram's compressed encoding, values in nanoseconds, so that any percentile can be asked later.
CREATE TABLE run_histograms (
    run_id     bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name       text NOT NULL,
    histogram  bytea NOT NULL,
    PRIMARY KEY (run_id, name)
);

CREATE TABLE acknowledgements (
    series_id  text NOT NULL,
    figure     text NOT NULL,
    first_run  text NOT NULL,
    note       text,
    at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (series_id, figure, first_run)
);
