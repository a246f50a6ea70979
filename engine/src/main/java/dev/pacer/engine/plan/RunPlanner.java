package dev.pacer.engine.plan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.BenchmarkRunSpec;
import dev.pacer.api.BenchmarkRunValidation;
import dev.pacer.api.FieldProblem;
import dev.pacer.api.PodSettings;
import dev.pacer.api.Quantities;
import dev.pacer.api.RunTemplate;
import dev.pacer.api.SpecDefaults;
import dev.pacer.engine.analysis.AnalysisInput;

/** {@code plan(run) → RunPlan}: the spec checked and parsed in one pass ({@link BenchmarkRunValidation#check}), no I/O. */
public final class RunPlanner {
    private RunPlanner() {
    }

    /** Thrown with every problem of a spec. */
    public static final class InvalidPlanException extends IllegalArgumentException {
        private final List<FieldProblem> problems;

        public InvalidPlanException(List<FieldProblem> problems) {
            super(problems.stream().map(FieldProblem::toString).reduce((a, b) -> a + "; " + b).orElse("invalid"));
            this.problems = List.copyOf(problems);
        }

        public List<FieldProblem> problems() {
            return problems;
        }
    }

    /** The client image of a run that names none, when the orchestrator has no default of its own. */
    public static final String DEFAULT_CLIENT_IMAGE = "pacer/loadgen:0.1.0";

    public static RunPlan plan(BenchmarkRun run) {
        return plan(run, DEFAULT_CLIENT_IMAGE);
    }

    /** @param defaultClientImage the client image of a run that names none (the operator's, from its chart) */
    public static RunPlan plan(BenchmarkRun run, String defaultClientImage) {
        return plan(run, defaultClientImage, OwnImages.AS_WRITTEN);
    }

    /**
     * @param defaultClientImage the client image of a run that names none (the operator's, from its chart)
     * @param ownImages          where pacer's own images named without a registry come from (the operator's install)
     */
    public static RunPlan plan(BenchmarkRun run, String defaultClientImage, OwnImages ownImages) {
        BenchmarkRunSpec spec = run.getSpec();
        BenchmarkRunValidation.Checked checked = BenchmarkRunValidation.check(spec);
        if (!checked.problems().isEmpty()) {
            throw new InvalidPlanException(checked.problems());
        }
        BenchmarkRunValidation.Parsed parsed = checked.parsed();
        BenchmarkRunSpec.Server s = spec.server;
        RunPlan.ServerRole server = new RunPlan.ServerRole(ownImages.resolve(s.image), List.copyOf(s.args == null ? List.of() : s.args),
                List.copyOf(s.jvmOptions == null ? List.of() : s.jvmOptions), Objects.requireNonNullElse(s.port, SpecDefaults.SERVER_PORT),
                parsed.serverCpuMillis(), Objects.requireNonNullElse(s.memory, SpecDefaults.MEMORY),
                new LinkedHashMap<>(s.labels == null ? Map.of() : s.labels),
                parsed.measure(), s.readinessPath, s.command == null ? null : List.copyOf(s.command));
        BenchmarkRunSpec.Clients c = spec.clients;
        int rate = Math.toIntExact(parsed.ratePerClient());
        List<RunPlan.ClientRole> clients = new ArrayList<>();
        for (int i = 0; i < c.count; i++) {
            clients.add(new RunPlan.ClientRole("client-" + i, rate, Objects.requireNonNullElse(c.connections, SpecDefaults.CONNECTIONS),
                    Objects.requireNonNullElse(c.senderThreads, SpecDefaults.SENDER_THREADS),
                    parsed.minWakeupIntervalMicros(),
                    parsed.connectionOrder(), parsed.maxConcurrentStreams(), parsed.httpVersion(),
                    c.image == null || c.image.isBlank() ? defaultClientImage : ownImages.resolve(c.image), parsed.clientCpuMillis(),
                    Objects.requireNonNullElse(c.memory, SpecDefaults.MEMORY), List.copyOf(c.jvmOptions == null ? List.of() : c.jvmOptions)));
        }
        BenchmarkRunSpec.Criteria criteria = spec.criteria == null ? new BenchmarkRunSpec.Criteria() : spec.criteria;
        AnalysisInput.Criteria parsedCriteria = new AnalysisInput.Criteria(parsed.rateTolerance(), parsed.maxSendLagP99(),
                Optional.ofNullable(parsed.maxP99()), Objects.requireNonNullElse(criteria.maxErrorRatio, SpecDefaults.MAX_ERROR_RATIO),
                Optional.ofNullable(parsed.maxClientStall()), Optional.ofNullable(parsed.expectP99Integral()));
        String name = run.getMetadata() == null || run.getMetadata().getName() == null ? "run" : run.getMetadata().getName();
        return new RunPlan(name, server, clients, parsed.warmup(), parsed.duration(), parsed.samplePeriod(), parsed.timeout(),
                c.count + "x" + Quantities.formatRate(rate), parsedCriteria, request(spec.request, parsed.requestTimeout()),
                cleanup(spec.cleanup), parsed.rampUp(), placement(spec), tls(spec));
    }

    /** TLS of an https run, defaults applied; {@code null} in cleartext. */
    static RunPlan.TlsPlan tls(BenchmarkRunSpec spec) {
        if (!BenchmarkRunValidation.https(spec)) {
            return null;
        }
        RunTemplate.Tls tls = spec.tls == null ? new RunTemplate.Tls() : spec.tls;
        RunTemplate.TlsCertificate certificate = tls.certificate;
        return new RunPlan.TlsPlan(List.copyOf(tls.protocols == null ? SpecDefaults.TLS_PROTOCOLS : tls.protocols),
                Objects.requireNonNullElse(tls.sessionResumption, SpecDefaults.TLS_SESSION_RESUMPTION),
                Objects.requireNonNullElse(tls.requestsPerConnection, SpecDefaults.TLS_REQUESTS_PER_CONNECTION),
                certificate == null ? null : certificate.secretName, certificate == null ? null : certificate.directory, null, null, null);
    }

    /** Pinning per role is {@link BenchmarkRunValidation#pinsServer}'s and {@link BenchmarkRunValidation#pinsClients}'s rule. */
    static RunPlan.Placement placement(BenchmarkRunSpec spec) {
        BenchmarkRunSpec.Placement given = spec.placement == null ? new BenchmarkRunSpec.Placement() : spec.placement;
        return new RunPlan.Placement(
                role(BenchmarkRunValidation.pinsServer(spec), given.server, spec.server.pod),
                role(BenchmarkRunValidation.pinsClients(spec), given.clients, spec.clients.pod),
                Objects.requireNonNullElse(given.separateNodes, SpecDefaults.SEPARATE_NODES));
    }

    private static RunPlan.RolePlacement role(boolean pinCpus, BenchmarkRunSpec.RolePlacement given, PodSettings pod) {
        BenchmarkRunSpec.RolePlacement role = given == null ? new BenchmarkRunSpec.RolePlacement() : given;
        return new RunPlan.RolePlacement(pinCpus, Map.copyOf(role.nodeSelector == null ? Map.of() : role.nodeSelector),
                List.copyOf(role.tolerations == null ? List.of() : role.tolerations), pod == null ? new PodSettings() : pod);
    }

    /** The request every client sends, with the defaults of docs/design.md: GET /, no headers, no body, 30 s timeout. */
    static RunPlan.RequestPlan request(BenchmarkRunSpec.HttpRequest request, Duration timeout) {
        BenchmarkRunSpec.HttpRequest r = request == null ? new BenchmarkRunSpec.HttpRequest() : request;
        return new RunPlan.RequestPlan(Objects.requireNonNullElse(r.method, SpecDefaults.METHOD), Objects.requireNonNullElse(r.path, SpecDefaults.PATH),
                Map.copyOf(r.headers == null ? Map.of() : r.headers), Objects.requireNonNullElse(r.body, SpecDefaults.BODY),
                timeout);
    }

    static RunPlan.CleanupPlan cleanup(BenchmarkRunSpec.Cleanup cleanup) {
        BenchmarkRunSpec.Cleanup c = cleanup == null ? new BenchmarkRunSpec.Cleanup() : cleanup;
        return new RunPlan.CleanupPlan(RunPlan.PodCleanup.valueOf(Objects.requireNonNullElse(c.pods, SpecDefaults.CLEANUP_PODS)),
                c.ttlSecondsAfterFinished == null ? null : Duration.ofSeconds(c.ttlSecondsAfterFinished));
    }
}
