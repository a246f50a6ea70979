package dev.pacer.contract;

/**
 * The agent HTTP contract's paths, environment and series names (docs/design.md, "The agent contract"). Every image,
 * the engine and any agent written in another language (the kernel probe) use these names; the JSON bodies are the
 * records of this package.
 */
public final class AgentContract {
    /** 200 once ready, 503 before. */
    public static final String HEALTHZ = "/healthz";
    /** Prometheus text exposition. */
    public static final String METRICS = "/metrics";
    /** {@link AgentInfo}. */
    public static final String INFO = "/pacer/v1/info";
    /**
     * {@link AgentClock}: the agent's wall clock. Clients start at one instant of the orchestrator's clock and every role
     * cuts its periods by its own: the orchestrator measures each agent's offset before the load.
     */
    public static final String CLOCK = "/pacer/v1/clock";
    /** HdrHistogram interval log of a series, {@code ?series=NAME}; without a name, the agent's first series. */
    public static final String HISTOGRAMS = "/pacer/v1/histograms";
    /** {@link ResourceUse} of the measured process per sample period (servers; a 404 means not sampled). */
    public static final String RESOURCES = "/pacer/v1/resources";
    /** Load generators: POST a {@link RunRequest} (202 with a {@link LoadRunStatus}, 409 when a run was taken), GET a {@link LoadRunStatus}. */
    public static final String RUN = "/pacer/v1/run";
    /**
     * Load generators: POST a {@link RunStart} to an armed client (202 with a {@link LoadRunStatus}). A start already past
     * when it arrives is refused ({@link #RUN_START_PASSED}); a later one may replace a start that has not come yet;
     * once the load has begun, another start is refused ({@link #RUN_ALREADY_TAKEN}).
     */
    public static final String RUN_START = "/pacer/v1/run/start";
    /**
     * Load generators: POST a {@link RunWindow} to a client under way (202 with a {@link LoadRunStatus}): its measured
     * window starts later, and its schedule runs on to the window's new end. Only later, only a start still to come, and
     * only before the window in force has ended; otherwise refused ({@link #RUN_WINDOW_REFUSED}).
     */
    public static final String RUN_WINDOW = "/pacer/v1/run/window";

    /** Environment: the admin port (0 picks a free one). */
    public static final String ADMIN_PORT_ENV = "PACER_ADMIN_PORT";
    public static final int DEFAULT_ADMIN_PORT = 9090;
    /**
     * Environment of a server in an https run: its certificate chain and its key, PEM files. pacer's servers take them
     * as the defaults of {@code --tls-cert} and {@code --tls-key}; any other server may read them.
     */
    public static final String TLS_CERT_ENV = "PACER_TLS_CERT";
    public static final String TLS_KEY_ENV = "PACER_TLS_KEY";
    /** Environment: the sample period in milliseconds, the same for every role of a run. */
    public static final String SAMPLE_PERIOD_ENV = "PACER_SAMPLE_PERIOD_MS";

    /** Series of a server measured in process: first request byte parsed → response completed. */
    public static final String SERIES_PROCESSING = "processing";
    /** Series of a client: response time from the intended send time (coordinated omission corrected). */
    public static final String SERIES_RESPONSE_TIME = "responseTime";
    /** Series of a client: response time from the actual send time (not corrected, as a closed-loop tool reports it). */
    public static final String SERIES_RESPONSE_TIME_UNCORRECTED = "responseTimeUncorrected";
    /** Series of a client: actual minus intended send time. */
    public static final String SERIES_SEND_LAG = "sendLag";
    /**
     * Series of a TLS client and of a TLS server with pacer's agent: each TLS handshake, from its connection's open to the
     * handshake's end; its count per period is the handshakes of that period.
     */
    public static final String SERIES_HANDSHAKE = "handshake";
    /** Series of a server measured by the kernel probe: first request byte read → last response byte written. */
    public static final String SERIES_SERVICE = "service";
    /** Series of a server measured by the kernel probe: request bytes arrived in the socket → last response byte written. */
    public static final String SERIES_RESIDENCE = "residence";

    /** Roles as {@link AgentInfo#role()} names them. */
    public static final String ROLE_SERVER = "server";
    public static final String ROLE_CLIENT = "client";
    /** The kernel probe beside a server, as a run's infos, log files and processes name it (its own info says server). */
    public static final String ROLE_PROBE = "server-probe";

    /** HTTP status of a second POST of a run: this agent already took one. */
    public static final int RUN_ALREADY_TAKEN = 409;
    public static final int RUN_ACCEPTED = 202;
    /** HTTP status of a start whose instant had passed when it arrived: nothing starts late with a backlog. */
    public static final int RUN_START_PASSED = 422;
    /** HTTP status of a window move the client cannot make (an earlier start, one passed, a run ended). */
    public static final int RUN_WINDOW_REFUSED = 409;

    private AgentContract() {
    }
}
