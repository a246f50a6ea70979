package dev.pacer.operator;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Period;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.pacer.api.Quantities;
import dev.pacer.engine.plan.OwnImages;
import dev.pacer.engine.plan.RunPlanner;
import dev.pacer.operator.access.AgentAccess;
import dev.pacer.operator.run.RunQueue;

/**
 * The operator's settings, from its environment (the chart sets them):
 * <ul>
 *   <li>{@code PACER_AGENT_ACCESS}: {@code podIP} (default, operator inside the cluster) or {@code apiServerProxy};</li>
 *   <li>{@code PACER_WATCH_NAMESPACES}: comma-separated namespaces to watch; unset or empty: all namespaces;</li>
 *   <li>{@code PACER_METRICS_PORT}: the port of {@code /metrics} and {@code /-/healthy} (default 8080; 0 picks a free one);</li>
 *   <li>{@code PACER_DEFAULT_CLIENT_IMAGE}: the client image of a run that names none (the chart sets its own load
 *       generator, from its registry; default {@value RunPlanner#DEFAULT_CLIENT_IMAGE}).</li>
 *   <li>{@code PACER_PROBE_IMAGE}: the kernel probe's image, for runs with {@code measure: probe/both} (default
 *       {@value #DEFAULT_PROBE_IMAGE}); {@code PACER_PROBE_NAMESPACE}: where probe pods run, the operator's own
 *       namespace (the chart sets it; default: {@code POD_NAMESPACE}, else {@value #DEFAULT_PROBE_NAMESPACE});
 *       {@code PACER_PROBE_IMAGE_PULL_SECRETS}: secrets of that namespace to pull it with, comma-separated (the chart's
 *       {@code image.pullSecrets}).</li>
 *   <li>{@code PACER_MAX_ACTIVE_RUNS}: runs at once over every namespace watched, the others {@code Queued} oldest
 *       first (default {@value #DEFAULT_MAX_ACTIVE_RUNS}; 0: no limit).</li>
 *   <li>{@code PACER_LEADER_ELECTION}: {@code true} to run as one of several replicas, of which the holder of the
 *       Lease {@value LeaderElection#LEASE_NAME} acts (default {@code false}; the chart sets it); the Lease lies in
 *       {@code PACER_LEASE_NAMESPACE} (default: {@code POD_NAMESPACE}), held under {@code POD_NAME} (default: the
 *       host name and pid).</li>
 *   <li>{@code PACER_ARTIFACTS_DIR}: a directory (a volume) where every finished run's results directory is kept (default:
 *       none kept); {@code PACER_ARTIFACTS_RETENTION}: how long after the run finished, as {@code 720h}, {@code 30d}
 *       or ISO-8601 {@code P30D} (default 30 days), {@code 0}: while the run exists; {@code PACER_ARTIFACTS_SERVICE}:
 *       the Service that serves them for {@code pacer fetch}, {@code NAMESPACE/NAME:PORT} (the chart sets it).</li>
 *   <li>{@code PACER_GRAFANA_URL}: Grafana's address as users' browsers reach it; each run's status then links to its run
 *       dashboard over its window (default: none).</li>
 *   <li>{@code PACER_IMAGE_REGISTRY}: the registry pacer's images were installed from (the chart's {@code image.registry});
 *       a run naming one of them without a registry ({@code pacer/server-jetty12:0.1.0}) pulls it from there
 *       ({@link OwnImages}; default {@value OwnImages#NAMESPACE}: as written).</li>
 * </ul>
 *
 * @param watchNamespaces    empty: every namespace
 * @param defaultClientImage the client image of a run that names none
 * @param grafana            Grafana's address for the runs' dashboard links; {@code null}: no links
 * @param ownImages          where pacer's own images named without a registry come from
 */
public record OperatorSettings(AgentAccess agentAccess, Set<String> watchNamespaces, int metricsPort, String defaultClientImage,
                               ProbeSettings probe, int maxActiveRuns, LeaderElection leaderElection,
                               Artifacts artifacts, URI grafana, OwnImages ownImages) {
    /**
     * Where finished runs' results directories are kept ({@link dev.pacer.operator.artifacts.ArtifactStore}).
     *
     * @param directory {@code null}: none are kept
     * @param retention how long after a run finished; {@code null}: while the run exists
     * @param service   the Service serving them, {@code NAMESPACE/NAME:PORT}, for {@code pacer fetch}; {@code null}: none
     */
    public record Artifacts(Path directory, Duration retention, String service) {
        public static final Artifacts OFF = new Artifacts(null, null, null);
        public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);

        public boolean enabled() {
            return directory != null;
        }
    }

    public OperatorSettings(AgentAccess agentAccess, Set<String> watchNamespaces, int metricsPort, String defaultClientImage,
                            ProbeSettings probe, int maxActiveRuns, LeaderElection leaderElection, Artifacts artifacts) {
        this(agentAccess, watchNamespaces, metricsPort, defaultClientImage, probe, maxActiveRuns, leaderElection, artifacts, null,
                OwnImages.AS_WRITTEN);
    }

    public OperatorSettings(AgentAccess agentAccess, Set<String> watchNamespaces, int metricsPort, String defaultClientImage,
                            ProbeSettings probe, int maxActiveRuns, LeaderElection leaderElection) {
        this(agentAccess, watchNamespaces, metricsPort, defaultClientImage, probe, maxActiveRuns, leaderElection, Artifacts.OFF);
    }

    /**
     * Several replicas, one acting: the holder of a Lease. A replica that loses it exits, and its pod restarts as a
     * standby; a standby takes over within the Lease's duration after the holder stops renewing it.
     *
     * @param enabled   off: this process acts alone
     * @param namespace the Lease's namespace
     * @param identity  this replica's name in the Lease
     */
    public record LeaderElection(boolean enabled, String namespace, String identity) {
        public static final String LEASE_NAME = "pacer-operator";
        public static final LeaderElection OFF = new LeaderElection(false, null, null);
    }

    public OperatorSettings(AgentAccess agentAccess, Set<String> watchNamespaces, int metricsPort, String defaultClientImage,
                            ProbeSettings probe, int maxActiveRuns) {
        this(agentAccess, watchNamespaces, metricsPort, defaultClientImage, probe, maxActiveRuns, LeaderElection.OFF);
    }

    /** Runs at once by default: one, as a benchmark cluster has one set of machines to measure on. */
    public static final int DEFAULT_MAX_ACTIVE_RUNS = 1;

    public OperatorSettings(AgentAccess agentAccess, Set<String> watchNamespaces, int metricsPort, String defaultClientImage,
                            ProbeSettings probe) {
        this(agentAccess, watchNamespaces, metricsPort, defaultClientImage, probe, DEFAULT_MAX_ACTIVE_RUNS);
    }

    public static final String DEFAULT_PROBE_IMAGE = "pacer/probe:0.1.0";
    public static final String DEFAULT_PROBE_NAMESPACE = "pacer-system";

    public OperatorSettings(AgentAccess agentAccess, Set<String> watchNamespaces, int metricsPort) {
        this(agentAccess, watchNamespaces, metricsPort, RunPlanner.DEFAULT_CLIENT_IMAGE,
                new ProbeSettings(DEFAULT_PROBE_IMAGE, DEFAULT_PROBE_NAMESPACE));
    }

    public static OperatorSettings fromEnvironment(Map<String, String> env) {
        AgentAccess access = AgentAccess.parse(env.get("PACER_AGENT_ACCESS"));
        String namespaces = env.getOrDefault("PACER_WATCH_NAMESPACES", "");
        Set<String> watch = Arrays.stream(namespaces.split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
        String portText = env.getOrDefault("PACER_METRICS_PORT", "8080");
        int port;
        try {
            port = Integer.parseInt(portText.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("PACER_METRICS_PORT must be a port number, was '" + portText + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("PACER_METRICS_PORT must lie in [0, 65535], was " + port);
        }
        String clientImage = env.getOrDefault("PACER_DEFAULT_CLIENT_IMAGE", "").strip();
        String probeImage = env.getOrDefault("PACER_PROBE_IMAGE", "").strip();
        String probeNamespace = env.getOrDefault("PACER_PROBE_NAMESPACE", env.getOrDefault("POD_NAMESPACE", "")).strip();
        String maxText = env.getOrDefault("PACER_MAX_ACTIVE_RUNS", Integer.toString(DEFAULT_MAX_ACTIVE_RUNS)).strip();
        int maxActive;
        try {
            maxActive = Integer.parseInt(maxText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("PACER_MAX_ACTIVE_RUNS must be a number of runs (0: no limit), was '" + maxText + "'");
        }
        if (maxActive < 0) {
            throw new IllegalArgumentException("PACER_MAX_ACTIVE_RUNS must be 0 (no limit) or more, was " + maxActive);
        }
        String election = env.getOrDefault("PACER_LEADER_ELECTION", "false").strip();
        if (!election.equals("true") && !election.equals("false")) {
            throw new IllegalArgumentException("PACER_LEADER_ELECTION must be true or false, was '" + election + "'");
        }
        String leaseNamespace = env.getOrDefault("PACER_LEASE_NAMESPACE", env.getOrDefault("POD_NAMESPACE", "")).strip();
        if (election.equals("true") && leaseNamespace.isEmpty()) {
            throw new IllegalArgumentException("PACER_LEADER_ELECTION is true but no namespace holds the Lease: set PACER_LEASE_NAMESPACE "
                    + "(or POD_NAMESPACE, as the chart does)");
        }
        String identity = env.getOrDefault("POD_NAME", "").strip();
        if (identity.isEmpty()) {
            identity = env.getOrDefault("HOSTNAME", "pacer-operator") + "-" + ProcessHandle.current().pid();
        }
        Artifacts artifacts = artifacts(env);
        return new OperatorSettings(access, watch, port, clientImage.isEmpty() ? RunPlanner.DEFAULT_CLIENT_IMAGE : clientImage,
                new ProbeSettings(probeImage.isEmpty() ? DEFAULT_PROBE_IMAGE : probeImage,
                        probeNamespace.isEmpty() ? DEFAULT_PROBE_NAMESPACE : probeNamespace,
                        Arrays.stream(env.getOrDefault("PACER_PROBE_IMAGE_PULL_SECRETS", "").split(","))
                                .map(String::strip).filter(name -> !name.isEmpty()).toList()),
                maxActive == 0 ? RunQueue.UNLIMITED : maxActive,
                election.equals("true") ? new LeaderElection(true, leaseNamespace, identity) : LeaderElection.OFF, artifacts,
                grafana(env), new OwnImages(env.getOrDefault("PACER_IMAGE_REGISTRY", "")));
    }

    /** An absolute http(s) address with a host; a trailing slash is dropped, as links are appended to it. */
    static URI grafana(Map<String, String> env) {
        String text = env.getOrDefault("PACER_GRAFANA_URL", "").strip();
        if (text.isEmpty()) {
            return null;
        }
        try {
            URI uri = new URI(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    || uri.getQuery() != null || uri.getFragment() != null) {
                throw new URISyntaxException(text, "not an http(s) address with a host");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("PACER_GRAFANA_URL must be Grafana's address, such as https://grafana.example.com "
                    + "or http://grafana.monitoring:3000/grafana (no query), was '" + text + "'");
        }
    }

    static Artifacts artifacts(Map<String, String> env) {
        String dir = env.getOrDefault("PACER_ARTIFACTS_DIR", "").strip();
        if (dir.isEmpty()) {
            return Artifacts.OFF;
        }
        String text = env.getOrDefault("PACER_ARTIFACTS_RETENTION", "").strip();
        Duration retention = text.isEmpty() ? Artifacts.DEFAULT_RETENTION : retention(text);
        String service = env.getOrDefault("PACER_ARTIFACTS_SERVICE", "").strip();
        if (!service.isEmpty() && !service.matches("[a-z0-9-]+/[a-z0-9-]+:[0-9]+")) {
            throw new IllegalArgumentException("PACER_ARTIFACTS_SERVICE must be NAMESPACE/NAME:PORT, was '" + service + "'");
        }
        return new Artifacts(Path.of(dir), retention.isZero() ? null : retention, service.isEmpty() ? null : service);
    }

    /** {@code 720h}, {@code 90m} (the specs' durations), {@code 30d}, or ISO-8601 {@code P30D}; {@code 0}: while the run exists. */
    static Duration retention(String text) {
        try {
            if (text.equals("0")) {
                return Duration.ZERO;
            }
            if (text.matches("\\d+d")) {
                return Duration.ofDays(Long.parseLong(text.substring(0, text.length() - 1)));
            }
            if (!text.startsWith("P")) {
                return Quantities.parseDuration(text);
            }
            if (text.contains("T")) {
                return Duration.parse(text);
            }
            Period period = Period.parse(text);   // P30D: days only, a month has no fixed length
            if (period.getYears() != 0 || period.getMonths() != 0 || period.isNegative()) {
                throw new IllegalArgumentException("days only");
            }
            return Duration.ofDays(period.getDays());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("PACER_ARTIFACTS_RETENTION must be a duration such as 720h, 30d or P30D "
                    + "(0: while the run exists), was '" + text + "'");
        }
    }
}
