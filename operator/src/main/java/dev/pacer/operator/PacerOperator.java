package dev.pacer.operator;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.operator.artifacts.ArtifactStore;
import dev.pacer.operator.history.HistoryRecorder;
import dev.pacer.operator.metrics.HistoryMetrics;
import dev.pacer.operator.artifacts.ArtifactsHandler;
import dev.pacer.operator.crd.CrdCheck;
import dev.pacer.operator.metrics.ReconcileMetrics;
import dev.pacer.operator.metrics.RunMetrics;
import dev.pacer.operator.metrics.SuiteMetrics;
import dev.pacer.operator.schedule.BenchmarkScheduleReconciler;
import dev.pacer.operator.suite.BenchmarkSuiteReconciler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: the BenchmarkRun controller and the metrics endpoint ({@code /metrics}: the finished runs'
 * {@code pacer_run_*} series, reconcile metrics and JVM metrics; {@code /-/healthy} for probes; {@code /artifacts/} when
 * it keeps finished runs' results). {@link #start} serves
 * tests too, with a given client and port 0.
 */
public final class PacerOperator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PacerOperator.class);

    private final Operator operator;
    private final HTTPServer metricsServer;
    private final ScheduledExecutorService pruning;

    private PacerOperator(Operator operator, HTTPServer metricsServer, ScheduledExecutorService pruning) {
        this.operator = operator;
        this.metricsServer = metricsServer;
        this.pruning = pruning;
    }

    public static void main(String[] args) {
        OperatorSettings settings;
        try {
            settings = OperatorSettings.fromEnvironment(System.getenv());
            HistoryRecorder.Settings.fromEnvironment(System.getenv());   // a bad setting stops the start here, named; start() reads it
        } catch (IllegalArgumentException e) {
            System.err.println("pacer-operator: " + e.getMessage());
            System.exit(2);
            return;
        }
        KubernetesClient client = new KubernetesClientBuilder().build();
        CrdCheck.Outcome crds = CrdCheck.check(client);
        if (!crds.passed()) {
            System.err.println("pacer-operator: the installed CRDs are older than this operator, and the API server would drop "
                    + "the fields they lack from every status it writes: " + String.join("; ", crds.outdated())
                    + ". Apply this release's CRDs: kubectl apply --server-side --force-conflicts -f charts/pacer/crds/ "
                    + "(docs/installing.md, Upgrading)");
            System.exit(2);
            return;
        }
        LOG.info("CRDs {}", crds.unreadable().isEmpty() ? "current: " + String.join(", ", new TreeSet<>(CrdCheck.CRDS.keySet()))
                : "not checked, cannot read " + String.join(", ", crds.unreadable()) + " (get on customresourcedefinitions)");
        try {
            PacerOperator running = start(client, settings);
            Runtime.getRuntime().addShutdownHook(new Thread(running::close, "pacer-operator-shutdown"));
        } catch (IOException | RuntimeException e) {
            System.err.println("pacer-operator: could not start: " + e.getMessage());
            System.exit(1);
        }
    }

    /**
     * Reconciliations at once. Most take milliseconds; a collection takes seconds, and runs at once are few
     * ({@code PACER_MAX_ACTIVE_RUNS}): more threads would only cost memory (JOSDK's default is 200).
     */
    static final int RECONCILE_THREADS = 8;

    public static PacerOperator start(KubernetesClient client, OperatorSettings settings) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        registerOwnJvmSeries(registry);
        ReconcileMetrics reconcileMetrics = new ReconcileMetrics(registry);
        OperatorSettings.LeaderElection election = settings.leaderElection();
        Operator operator = new Operator(o -> {
            o.withKubernetesClient(client).withMetrics(reconcileMetrics).withCloseClientOnStop(false)
                    .withConcurrentReconciliationThreads(RECONCILE_THREADS);
            if (election.enabled()) {
                // one replica acts; on losing the Lease it exits, so that its pod restarts as a standby
                o.withLeaderElectionConfiguration(LeaderElectionConfigurationBuilder
                        .aLeaderElectionConfiguration(OperatorSettings.LeaderElection.LEASE_NAME)
                        .withLeaseNamespace(election.namespace()).withIdentity(election.identity()).build());
            }
        });
        BenchmarkRunReconciler reconciler = new BenchmarkRunReconciler(settings.agentAccess(), settings.defaultClientImage(),
                settings.probe(), settings.maxActiveRuns(), Clock.systemUTC()).linkingDashboardsAt(settings.grafana())
                .resolvingOwnImages(settings.ownImages());
        operator.register(reconciler, o -> watching(o, settings));
        var suiteReconciler = new BenchmarkSuiteReconciler();
        operator.register(suiteReconciler, o -> watching(o, settings));
        var scheduleReconciler = new BenchmarkScheduleReconciler();
        operator.register(scheduleReconciler, o -> watching(o, settings));
        ArtifactStore store = null;
        if (settings.artifacts().enabled()) {
            store = new ArtifactStore(settings.artifacts().directory(), settings.artifacts().retention(),
                    settings.artifacts().service(), Clock.systemUTC());
            reconciler.keepingArtifactsIn(store);
        }
        HistoryRecorder.Settings history = HistoryRecorder.Settings.fromEnvironment(System.getenv());
        if (history != null) {
            HistoryRecorder recorder = new HistoryRecorder(history);
            reconciler.recordingHistoryWith(recorder);
            scheduleReconciler.readingHistoryFrom(recorder);
            registry.register(new HistoryMetrics(recorder::series));
            LOG.info("finished runs recorded in the history: {}", history);
        }
        registry.register(new RunMetrics(reconciler::heldRuns));
        registry.register(new SuiteMetrics(suiteReconciler::heldSuites));
        HTTPServer.Builder http = HTTPServer.builder().port(settings.metricsPort()).registry(registry);
        ScheduledExecutorService pruning = null;
        if (store != null) {
            http.defaultHandler(new ArtifactsHandler(store));
            pruning = prunePeriodically(store, () -> listRuns(client, settings.watchNamespaces()));
        }
        HTTPServer metricsServer = http.buildAndStart();
        operator.start();
        LOG.info("pacer operator started: agents reached by {}, namespaces {}, metrics on port {}{}",
                settings.agentAccess().setting(), settings.watchNamespaces().isEmpty() ? "all" : settings.watchNamespaces(),
                metricsServer.getPort(), election.enabled() ? ", acting while it holds the Lease " + election.namespace() + "/"
                        + OperatorSettings.LeaderElection.LEASE_NAME + " as " + election.identity() : "");
        if (store != null) {
            LOG.info("finished runs' results kept in {} ({}), served under /artifacts/ on port {}", store.root(),
                    settings.artifacts().retention() == null ? "while their run exists" : "for " + settings.artifacts().retention(),
                    metricsServer.getPort());
        }
        return new PacerOperator(operator, metricsServer, pruning);
    }

    /**
     * The operator's own footprint: heap and its pools, collections, threads, classes, and the process's CPU and resident
     * memory. Not the rest of client_java's JVM series: {@code jvm_native_memory_*} starts the platform MBean server and
     * JFR's diagnostic commands (~400 classes, ~9 MiB resident) to report nothing without native memory tracking.
     */
    /** Each reconciler's cache without managed fields, over the namespaces the operator watches. */
    private static <R extends HasMetadata> void watching(ControllerConfigurationOverrider<R> o, OperatorSettings settings) {
        o.withItemStore(CachePruning.withoutManagedFields());
        if (settings.watchNamespaces().isEmpty()) {
            o.watchingAllNamespaces();
        } else {
            o.settingNamespaces(settings.watchNamespaces());
        }
    }

    private static void registerOwnJvmSeries(PrometheusRegistry registry) {
        JvmMemoryMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmThreadsMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        ProcessMetrics.builder().register(registry);
    }

    /** Every run watched, read from the API server (not the cache, which a quiet operator may not have filled). */
    private static List<BenchmarkRun> listRuns(KubernetesClient client, Set<String> namespaces) {
        var runs = client.resources(BenchmarkRun.class);
        if (namespaces.isEmpty()) {
            return runs.inAnyNamespace().list().getItems();
        }
        List<BenchmarkRun> all = new ArrayList<>();
        namespaces.forEach(ns -> all.addAll(runs.inNamespace(ns).list().getItems()));
        return all;
    }

    /** Deletes expired results every ten minutes; a failed listing of the runs deletes nothing. */
    private static ScheduledExecutorService prunePeriodically(ArtifactStore store,
                                                                                     Supplier<List<BenchmarkRun>> runs) {
        var executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pacer-artifacts-pruning");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(() -> {
            try {
                var deleted = store.prune(runs.get());
                if (!deleted.isEmpty()) {
                    LOG.info("artifacts deleted (retention or run gone): {}", deleted);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("pruning the artifacts failed: {}", e.toString());
            }
        }, 2, 10, TimeUnit.MINUTES);
        return executor;
    }

    public int metricsPort() {
        return metricsServer.getPort();
    }

    @Override
    public void close() {
        if (pruning != null) {
            pruning.shutdownNow();
        }
        operator.stop();
        metricsServer.close();
    }
}
