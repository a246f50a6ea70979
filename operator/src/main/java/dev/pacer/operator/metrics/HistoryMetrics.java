package dev.pacer.operator.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.pacer.engine.history.SeriesHistory;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The {@code pacer_history_*} series (docs/history.md), from each series as the last run recorded in it left it: its
 * runs, its regressions that alert (confirmed, not acknowledged) and, per alerting change, its size. The chart's
 * PrometheusRule alerts on the first.
 */
public final class HistoryMetrics implements MultiCollector {
    private final Supplier<Collection<SeriesHistory>> series;

    public HistoryMetrics(Supplier<Collection<SeriesHistory>> series) {
        this.series = series;
    }

    @Override
    public MetricSnapshots collect() {
        return snapshots(series.get());
    }

    public static MetricSnapshots snapshots(Collection<SeriesHistory> histories) {
        Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
        for (SeriesHistory h : histories) {
            Labels labels = Labels.of("series", h.key().id(), "label", h.key().label());
            RunMetrics.gauge(gauges, "pacer_history_regressions", "Confirmed regressions of the series nobody acknowledged (docs/history.md)",
                    labels, (double) h.alerting().size());
            RunMetrics.gauge(gauges, "pacer_history_runs", "Runs recorded in the series", labels, (double) h.points().size());
            for (SeriesHistory.Change change : h.alerting()) {
                RunMetrics.gauge(gauges, "pacer_history_regression_ratio",
                        "Each alerting regression's size: the Hodges-Lehmann shift after it over the median before (0.1: 10 % worse in the figure's units)",
                        labels.merge(Labels.of("figure", change.figure().name(), "percentile", change.percentile() == null ? "" : change.percentile(),
                                "first_run", change.firstRun())), change.shift());
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        gauges.values().forEach(g -> snapshots.add(g.build()));
        return new MetricSnapshots(snapshots);
    }
}
