package dev.pacer.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One benchmark: a server under test, N open-loop clients, a warm-up and a measured duration. Its status carries the
 * phase, the pods, and the figures (P99 and max integrals) with a verdict.
 */
@Group(BenchmarkRun.GROUP)
@Version(BenchmarkRun.VERSION)
@Kind(BenchmarkRun.KIND)
@Plural(BenchmarkRun.PLURAL)
@ShortNames(BenchmarkRun.SHORT_NAME)
@Categories(BenchmarkRun.CATEGORY)
@AdditionalPrinterColumn(name = "LOAD", jsonPath = ".status.load", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The offered load, clients x rate, e.g. 4x60k.")
@AdditionalPrinterColumn(name = "PHASE", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Where the run is.")
@AdditionalPrinterColumn(name = "VERDICT", jsonPath = ".status.result.verdict", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Passed, Failed (a criterion not met) or Invalid (the measurement cannot be trusted).")
@AdditionalPrinterColumn(name = "P99-INT-US", jsonPath = ".status.result.server.p99IntegralMicros", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "The server's P99 integral, microseconds.")
@AdditionalPrinterColumn(name = "MAX-INT-US", jsonPath = ".status.result.server.maxIntegralMicros", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "The server's max integral, microseconds.")
@AdditionalPrinterColumn(name = "SERVER", jsonPath = ".spec.server.image", type = AdditionalPrinterColumn.Type.STRING, priority = 1,
        getDescription = "The server's image.")
@AdditionalPrinterColumn(name = "ACHIEVED", jsonPath = ".status.result.clients.achievedRate", type = AdditionalPrinterColumn.Type.NUMBER,
        priority = 1, getDescription = "Responses per second inside the window, all clients.")
@AdditionalPrinterColumn(name = "ERRORS", jsonPath = ".status.result.clients.errors", type = AdditionalPrinterColumn.Type.INTEGER,
        priority = 1, getDescription = "Failed requests and error statuses, all clients.")
@AdditionalPrinterColumn(name = "AGE", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE,
        getDescription = "Time since the resource was created.")
public class BenchmarkRun extends CustomResource<BenchmarkRunSpec, BenchmarkRunStatus> implements Namespaced {
    public static final String GROUP = "pacer.dev";
    public static final String VERSION = "v1alpha1";
    public static final String KIND = "BenchmarkRun";
    public static final String PLURAL = "benchmarkruns";
    public static final String SHORT_NAME = "br";
    /** {@code kubectl get pacer} lists every pacer resource. */
    public static final String CATEGORY = "pacer";
    public static final String API_VERSION = GROUP + "/" + VERSION;

    // overridden for their descriptions in the CRD (kubectl explain benchmarkrun.spec)
    // immutable here, on the resource, not on the spec's type: a BenchmarkSchedule's template is the same type and may change
    @ValidationRule(value = "self == oldSelf", message = "spec is immutable once created: delete the BenchmarkRun and create a new one",
            reason = "FieldValueForbidden")
    @Override
    @JsonPropertyDescription("What to run: the server under test, its clients and their open-loop rate, the warm-up and the measured duration, placement, criteria and cleanup.")
    public BenchmarkRunSpec getSpec() {
        return super.getSpec();
    }

    @Override
    @JsonPropertyDescription("What the operator observed and measured: the phase, conditions, pods, progress and, once finished, the result with its verdict. Written by the operator only.")
    public BenchmarkRunStatus getStatus() {
        return super.getStatus();
    }
}
