package dev.pacer.engine.report;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.AgentInfo;
import dev.pacer.engine.agents.RunCollector;
import dev.pacer.engine.plan.RunPlan;

/**
 * What exactly ran, in every result: pacer's version, the effective spec (defaults applied), and per role its image
 * with the digest the node ran, node, kernel, CPU model, online CPUs and frequency governor, cpuset, JVM and flags.
 * Two results are comparable when their manifests say so; a re-run can be set up from one.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunManifest(String pacerVersion, Map<String, Object> plan, Map<String, Role> roles) {

    /** One role: the platform's word (image, digest, node) and the agent's (the rest). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Role(String image, String imageId, String node, String hostname, String kernel, String cpuModel,
                       Integer onlineCpus, String governor, String cpuset, String measuredBy, String jvm,
                       List<String> jvmArguments) {
    }

    public static RunManifest of(RunPlan plan, RunCollector.Collected collected) {
        Map<String, Role> roles = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        names.add("server");
        if (collected.infos().containsKey(AgentContract.ROLE_PROBE)) {
            names.add(AgentContract.ROLE_PROBE);
        }
        plan.clients().forEach(c -> names.add(c.name()));
        for (String name : names) {
            AgentInfo info = collected.infos().get(name);
            RunCollector.Placed placed = collected.placed().get(name);
            Map<?, ?> host = info == null || !(info.extra("host") instanceof Map<?, ?> m) ? Map.of() : m;
            roles.put(name, new Role(placed == null ? null : placed.image(), placed == null ? null : placed.imageId(),
                    placed == null ? null : placed.node(), info == null ? null : info.hostname(), info == null ? null : info.kernel(),
                    text(host.get("cpuModel")), host.get("onlineCpus") instanceof Number n ? n.intValue() : null, text(host.get("governor")),
                    info == null ? null : info.cpuset(), info == null ? "none" : info.measuredBy(),
                    info == null || info.jvm() == null ? null : info.jvm().vendor() + " " + info.jvm().version(),
                    info == null || info.jvm() == null ? null : info.jvm().arguments()));
        }
        return new RunManifest(version(), effective(plan), roles);
    }

    /** The plan as run: every default applied, durations in seconds or milliseconds. */
    static Map<String, Object> effective(RunPlan plan) {
        Map<String, Object> server = new LinkedHashMap<>();
        RunPlan.ServerRole s = plan.server();
        server.put("image", s.image());
        server.put("args", s.args());
        server.put("jvmOptions", s.jvmOptions());
        server.put("port", s.port());
        server.put("cpuMillis", s.cpuMillis());
        server.put("memory", s.memory());
        server.put("measure", s.measure().spec());
        if (s.command() != null) {
            server.put("command", s.command());
        }
        List<Map<String, Object>> clients = plan.clients().stream().map(c -> {
            Map<String, Object> client = new LinkedHashMap<>();
            client.put("name", c.name());
            client.put("ratePerSecond", c.ratePerSecond());
            client.put("connections", c.connections());
            client.put("senderThreads", c.senderThreads());
            client.put("minWakeupIntervalMicros", c.minWakeupIntervalMicros());
            if (c.connectionOrder() != null) {
                client.put("connectionOrder", c.connectionOrder());
            }
            if (c.maxConcurrentStreams() != null) {
                client.put("maxConcurrentStreams", c.maxConcurrentStreams());
            }
            client.put("httpVersion", c.httpVersion());
            client.put("image", c.image());
            client.put("cpuMillis", c.cpuMillis());
            client.put("memory", c.memory());
            client.put("jvmOptions", c.jvmOptions());
            return client;
        }).toList();
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("method", plan.request().method());
        request.put("path", plan.request().path());
        request.put("headers", plan.request().headers());
        request.put("timeoutMs", plan.request().timeout().toMillis());
        Map<String, Object> criteria = new LinkedHashMap<>();
        criteria.put("rateTolerance", plan.criteria().rateTolerance());
        criteria.put("maxSendLagP99Ms", plan.criteria().maxSendLagP99().toMillis());
        plan.criteria().maxP99().ifPresent(d -> criteria.put("maxP99Ms", d.toMillis()));
        criteria.put("maxErrorRatio", plan.criteria().maxErrorRatio());
        Map<String, Object> effective = new LinkedHashMap<>();
        effective.put("load", plan.load());
        effective.put("server", server);
        effective.put("clients", clients);
        effective.put("request", request);
        effective.put("warmupSeconds", plan.warmup().toMillis() / 1000.0);
        if (!plan.rampUp().isZero()) {
            effective.put("rampUpSeconds", plan.rampUp().toMillis() / 1000.0);
        }
        effective.put("durationSeconds", plan.duration().toMillis() / 1000.0);
        effective.put("samplePeriodMs", plan.samplePeriod().toMillis());
        effective.put("timeoutSeconds", plan.timeout().toSeconds());
        effective.put("criteria", criteria);
        return effective;
    }

    static String version() {
        try (InputStream in = RunManifest.class.getResourceAsStream("/dev/pacer/engine/pacer.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}
