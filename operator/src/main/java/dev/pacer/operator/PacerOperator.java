package dev.pacer.operator;

import java.io.IOException;

import dev.pacer.operator.metrics.ReconcileMetrics;
import dev.pacer.operator.metrics.RunMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: the BenchmarkRun controller and the metrics endpoint ({@code /metrics}: the finished runs'
 * {@code pacer_run_*} series, reconcile metrics and JVM metrics; {@code /-/healthy} for probes). {@link #start} serves
 * tests too, with a given client and port 0.
 */
public final class PacerOperator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PacerOperator.class);

    private final Operator operator;
    private final HTTPServer metricsServer;

    private PacerOperator(Operator operator, HTTPServer metricsServer) {
        this.operator = operator;
        this.metricsServer = metricsServer;
    }

    public static void main(String[] args) {
        OperatorSettings settings;
        try {
            settings = OperatorSettings.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("pacer-operator: " + e.getMessage());
            System.exit(2);
            return;
        }
        KubernetesClient client = new KubernetesClientBuilder().build();
        try {
            PacerOperator running = start(client, settings);
            Runtime.getRuntime().addShutdownHook(new Thread(running::close, "pacer-operator-shutdown"));
        } catch (IOException | RuntimeException e) {
            System.err.println("pacer-operator: could not start: " + e.getMessage());
            System.exit(1);
        }
    }

    public static PacerOperator start(KubernetesClient client, OperatorSettings settings) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        JvmMetrics.builder().register(registry);
        ReconcileMetrics reconcileMetrics = new ReconcileMetrics(registry);
        OperatorSettings.LeaderElection election = settings.leaderElection();
        Operator operator = new Operator(o -> {
            o.withKubernetesClient(client).withMetrics(reconcileMetrics).withCloseClientOnStop(false);
            if (election.enabled()) {
                // one replica acts; on losing the Lease it exits, so that its pod restarts as a standby
                o.withLeaderElectionConfiguration(LeaderElectionConfigurationBuilder
                        .aLeaderElectionConfiguration(OperatorSettings.LeaderElection.LEASE_NAME)
                        .withLeaseNamespace(election.namespace()).withIdentity(election.identity()).build());
            }
        });
        BenchmarkRunReconciler reconciler = new BenchmarkRunReconciler(settings.agentAccess(), settings.defaultClientImage(),
                settings.probe(), settings.maxActiveRuns(), java.time.Clock.systemUTC());
        operator.register(reconciler, o -> {
            if (settings.watchNamespaces().isEmpty()) {
                o.watchingAllNamespaces();
            } else {
                o.settingNamespaces(settings.watchNamespaces());
            }
        });
        var suiteReconciler = new dev.pacer.operator.suite.BenchmarkSuiteReconciler();
        operator.register(suiteReconciler, o -> {
            if (settings.watchNamespaces().isEmpty()) {
                o.watchingAllNamespaces();
            } else {
                o.settingNamespaces(settings.watchNamespaces());
            }
        });
        registry.register(new RunMetrics(reconciler::heldRuns));
        registry.register(new dev.pacer.operator.metrics.SuiteMetrics(suiteReconciler::heldSuites));
        HTTPServer metricsServer = HTTPServer.builder().port(settings.metricsPort()).registry(registry).buildAndStart();
        operator.start();
        LOG.info("pacer operator started: agents reached by {}, namespaces {}, metrics on port {}{}",
                settings.agentAccess().setting(), settings.watchNamespaces().isEmpty() ? "all" : settings.watchNamespaces(),
                metricsServer.getPort(), election.enabled() ? ", acting while it holds the Lease " + election.namespace() + "/"
                        + OperatorSettings.LeaderElection.LEASE_NAME + " as " + election.identity() : "");
        return new PacerOperator(operator, metricsServer);
    }

    public int metricsPort() {
        return metricsServer.getPort();
    }

    @Override
    public void close() {
        operator.stop();
        metricsServer.close();
    }
}
