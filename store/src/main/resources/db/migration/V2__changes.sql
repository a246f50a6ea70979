-- The changes the latest analysis of each series found (docs/history.md), replaced whole at each analysis of the
-- series: what the Grafana dashboard "pacer / history" draws as annotations, read with SQL alone.
CREATE TABLE changes (
    series_id     text NOT NULL REFERENCES series (id),
    figure        text NOT NULL,               -- p99Integral, maxIntegral, achievedRate, errors, spectrum
    percentile    text,                        -- the spectrum's percentile that moved most
    first_run     text NOT NULL,               -- the first run after the change
    at_epoch_ms   bigint NOT NULL,             -- that run's window end: where the annotation stands
    shift         double precision NOT NULL,   -- Hodges-Lehmann shift over the median before (0.1: 10 % higher)
    shift_low     double precision NOT NULL,   -- its 95 % interval
    shift_high    double precision NOT NULL,
    status        text NOT NULL,               -- suspected or confirmed
    regression    boolean NOT NULL,
    acknowledged  boolean NOT NULL,
    description   text NOT NULL,               -- the sentence pacer tells it with
    PRIMARY KEY (series_id, figure, first_run)
);
