package dev.pacer.engine.plan;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.pacer.api.Measure;
import dev.pacer.api.PodSettings;
import dev.pacer.contract.RunRequest;
import dev.pacer.engine.analysis.AnalysisInput;

/**
 * A spec turned into roles and numbers, with no I/O: what to start, what to post to every client, and how to judge.
 *
 * @param runName        the run's name
 * @param server         the server role
 * @param clients        the client roles, {@code client-0 … client-(N-1)}
 * @param warmup         warm-up
 * @param duration       measured duration
 * @param samplePeriod   sample period
 * @param timeout        the whole run's limit
 * @param load           e.g. {@code 2x500}
 * @param criteria       the verdict's thresholds
 * @param request        what every client sends, defaults applied
 * @param cleanup        the cleanup policy, defaults applied
 * @param rampUp         the first part of the warm-up, in which the clients ramp their rate up from 0 (zero: none)
 * @param placement      where the roles run and whether their CPUs are pinned
 * @param tls            TLS of an https run; {@code null} in cleartext
 */
public record RunPlan(String runName, ServerRole server, List<ClientRole> clients, Duration warmup, Duration duration,
                      Duration samplePeriod, Duration timeout, String load, AnalysisInput.Criteria criteria,
                      RequestPlan request, CleanupPlan cleanup, Duration rampUp, Placement placement, TlsPlan tls) {

    /**
     * TLS of an https run, defaults applied.
     *
     * @param protocols              versions offered and accepted
     * @param sessionResumption      whether a client's new connection resumes its earlier session
     * @param requestsPerConnection  a connection is retired after this many responses (0: never)
     * @param secretName             the server's certificate from this Kubernetes TLS Secret; {@code null}: see {@code directory}
     * @param directory              the server's certificate from this local directory (tls.crt, tls.key, ca.crt); both
     *                               {@code null}: one is made for the run
     * @param trustedCertificatesPem what the clients trust, once the platform has the certificate ({@code null} before)
     * @param trustedCertificatesFile or where the clients find it (a mounted Secret)
     * @param serverName             the name the clients check the certificate against and send as SNI ({@code null}: the
     *                               address they connect to)
     */
    public record TlsPlan(List<String> protocols, boolean sessionResumption, int requestsPerConnection, String secretName,
                          String directory, String trustedCertificatesPem, String trustedCertificatesFile, String serverName) {
        /** Whether the run makes its own certificate. */
        public boolean generated() {
            return secretName == null && directory == null;
        }

        /** The server's arguments for it: pacer's servers read the PEM files and serve these versions alone. */
        public List<String> serverArgs(String certificateFile, String keyFile) {
            return List.of("--tls-cert=" + certificateFile, "--tls-key=" + keyFile, "--tls-protocols=" + String.join(",", protocols));
        }
    }

    /**
     * This plan once the platform holds the server's certificate: what the clients are to trust (the PEM, or the file
     * they find it in) and the name they check it against.
     */
    public RunPlan withClientTrust(String pem, String file, String serverName) {
        return new RunPlan(runName, server, clients, warmup, duration, samplePeriod, timeout, load, criteria, request, cleanup, rampUp,
                placement, new TlsPlan(tls.protocols(), tls.sessionResumption(), tls.requestsPerConnection(), tls.secretName(),
                tls.directory(), pem, file, serverName));
    }

    /** {@code http} or {@code https}: how the clients reach the server. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /**
     * The least time between choosing {@code startAt} and the instant itself: the start is kept in the status, then
     * posted to each client, a round trip each; a start not taken in time costs one more lead, {@link #START_LEAD_AGAIN}
     * longer, so the first is short.
     */
    public static final Duration START_LEAD = Duration.ofSeconds(1);
    public static final Duration START_LEAD_PER_CLIENT = Duration.ofMillis(250);
    /** Added to the lead of a start chosen again because the last was not taken by every client in time. */
    public static final Duration START_LEAD_AGAIN = Duration.ofSeconds(2);
    /** Each client's share of the lead, in multiples of the slowest answer an agent gave in the step that chose it. */
    public static final int START_LEAD_ANSWERS_PER_CLIENT = 4;

    /**
     * @param method    HTTP method (GET)
     * @param path      path and query (/)
     * @param headers   extra headers
     * @param body      body ("")
     * @param timeout   a request not answered after this is a timeout error (30 s)
     */
    public record RequestPlan(String method, String path, Map<String, String> headers, String body, Duration timeout) {
    }

    /**
     * Where the roles run, defaults applied: what both platforms read (pods on Kubernetes, taskset locally).
     *
     * @param server        the server's
     * @param clients       every client's
     * @param separateNodes no client on the server's node (Kubernetes)
     */
    public record Placement(RolePlacement server, RolePlacement clients, boolean separateNodes) {
    }

    /**
     * @param pinCpus      exclusive CPUs (Kubernetes: Guaranteed QoS and the static CPU manager; locally: taskset): the
     *                     role's own {@code pinCpus}, else {@code placement.pinCpus}, else true
     * @param nodeSelector node labels the role's pods require
     * @param tolerations  the role's pods' tolerations, as in a pod spec
     * @param pod          the role's pod settings: pull secrets and policy, environment, annotations, priority, affinity
     */
    public record RolePlacement(boolean pinCpus, Map<String, String> nodeSelector, List<Map<String, Object>> tolerations,
                                PodSettings pod) {
    }

    /** Which pods to delete once finished, and when to delete the run itself. */
    public enum PodCleanup { Always, OnSuccess, Never }

    /**
     * @param pods                     the pod policy (OnSuccess)
     * @param ttlAfterFinished         delete the run this long after it finished; {@code null} keeps it
     */
    public record CleanupPlan(PodCleanup pods, Duration ttlAfterFinished) {
    }

    /**
     * @param image       image (Kubernetes) or server name (local)
     * @param args        server arguments
     * @param jvmOptions  JVM options
     * @param port        HTTP port (Kubernetes; locally any free port)
     * @param cpuMillis   CPUs asked, millicores
     * @param memory      memory, Kubernetes quantity
     * @param labels      result labels (server, variant)
     * @param measure     what measures the server
     * @param readinessPath without the agent: the HTTP path that says the server is ready; {@code null}: a TCP connect
     * @param command     the server's command (the container's, or a local program); {@code null}: the image's
     */
    public record ServerRole(String image, List<String> args, List<String> jvmOptions, int port, long cpuMillis,
                             String memory, Map<String, String> labels, Measure measure, String readinessPath,
                             List<String> command) {
    }

    /**
     * @param name          {@code client-<index>}
     * @param ratePerSecond offered rate of this client
     * @param connections   connections of this client
     * @param senderThreads sender threads (0: the load generator chooses)
     * @param minWakeupIntervalMicros requests due closer together than this go out on one wake-up of the pacing thread
     * @param connectionOrder HTTP/1.1: which idle connection a request takes ({@code null} over HTTP/2)
     * @param maxConcurrentStreams HTTP/2: requests a connection carries at once ({@code null} over HTTP/1.1)
     * @param cpuMillis     CPUs asked, millicores
     */
    public record ClientRole(String name, int ratePerSecond, int connections, int senderThreads, int minWakeupIntervalMicros,
                             String connectionOrder, Integer maxConcurrentStreams, String httpVersion, String image, long cpuMillis,
                             String memory, List<String> jvmOptions) {
    }

    public long totalRatePerSecond() {
        return clients.stream().mapToLong(ClientRole::ratePerSecond).sum();
    }

    /**
     * The start instant shared by every client: at least {@code leadTime} from now, on a period boundary so that the
     * warm-up ends on one too and the measured window holds whole periods.
     */
    public long startAtEpochMs(long nowEpochMs, Duration leadTime) {
        long period = samplePeriod.toMillis();
        long earliest = nowEpochMs + leadTime.toMillis();
        return Math.floorDiv(earliest + period - 1, period) * period;
    }

    /**
     * The lead from the decision to start to {@code startAt}: enough to post to every client, each at
     * {@value #START_LEAD_ANSWERS_PER_CLIENT} times the slowest answer just measured (a slow machine or API server
     * gets a longer lead).
     */
    public Duration startLead(Duration slowestAnswer) {
        return START_LEAD.plus(START_LEAD_PER_CLIENT.multipliedBy(clients.size()))
                .plus(slowestAnswer.multipliedBy((long) START_LEAD_ANSWERS_PER_CLIENT * clients.size()));
    }

    /**
     * The lead of a start chosen again, the last one not taken by every client in time: the first lead,
     * {@link #START_LEAD_AGAIN} and twice how late the last one arrived where a client found it passed.
     */
    public Duration startLeadAgain(Duration slowestAnswer, Duration lateness) {
        return startLead(slowestAnswer).plus(START_LEAD_AGAIN).plus(lateness.multipliedBy(2));
    }

    /** The body of {@code POST /pacer/v1/run} for one client. */
    public RunRequest runRequest(ClientRole client, String targetUrl, long startAtEpochMs) {
        return new RunRequest(targetUrl, client.ratePerSecond(), client.connections(), client.senderThreads(),
                client.httpVersion(), new RunRequest.HttpRequestSpec(request.method(), request.path(), request.headers(), request.body()),
                warmup.toMillis(), duration.toMillis(), samplePeriod.toMillis(), startAtEpochMs, request.timeout().toMillis(),
                rampUp.toMillis(), tls == null ? null : new RunRequest.Tls(tls.protocols(), tls.sessionResumption(),
                        tls.requestsPerConnection(), tls.trustedCertificatesPem(), tls.trustedCertificatesFile(), tls.serverName()),
                client.minWakeupIntervalMicros(), client.connectionOrder(), client.maxConcurrentStreams());
    }

    /** The client role of a name, e.g. {@code client-1}. */
    public ClientRole client(String name) {
        return clients.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no client " + name + " in run " + runName));
    }
}
