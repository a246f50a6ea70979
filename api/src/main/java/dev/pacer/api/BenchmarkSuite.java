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
 * A comparison of servers as the reference reports make it: every server of the list at fixed rates with
 * repetitions (Jetty's method: the P99 and max integrals, their spread), or through a sweep of rising rates (Chappe's
 * method: the highest rate sustained under a p99 limit). Its runs are BenchmarkRuns made from one template, run one at
 * a time in a fixed order (docs/suites.md).
 */
@Group(BenchmarkRun.GROUP)
@Version(BenchmarkRun.VERSION)
@Kind(BenchmarkSuite.KIND)
@Plural(BenchmarkSuite.PLURAL)
@ShortNames(BenchmarkSuite.SHORT_NAME)
@Categories(BenchmarkRun.CATEGORY)
@AdditionalPrinterColumn(name = "PHASE", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Where the suite is.")
@AdditionalPrinterColumn(name = "RUNS", jsonPath = ".status.runsDone", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Runs finished.")
@AdditionalPrinterColumn(name = "CURRENT", jsonPath = ".status.currentRun", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The run under way.")
@AdditionalPrinterColumn(name = "AGE", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE,
        getDescription = "Time since the resource was created.")
public class BenchmarkSuite extends CustomResource<BenchmarkSuiteSpec, BenchmarkSuiteStatus> implements Namespaced {
    public static final String KIND = "BenchmarkSuite";
    public static final String PLURAL = "benchmarksuites";
    public static final String SHORT_NAME = "bs";

    // overridden for their descriptions in the CRD (kubectl explain benchmarksuite.spec)
    // immutable here, on the resource, not on the spec's type: a BenchmarkSchedule's template is the same type and may change
    @ValidationRule(value = "self == oldSelf", message = "spec is immutable once created: delete the BenchmarkSuite and create a new one",
            reason = "FieldValueForbidden")
    @Override
    @JsonPropertyDescription("What to compare: the servers, the run template they share, and fixed rates with repetitions or a sweep of rising rates.")
    public BenchmarkSuiteSpec getSpec() {
        return super.getSpec();
    }

    @Override
    @JsonPropertyDescription("What the operator observed: the phase, conditions, each run's outcome, each server's summary and the comparisons between servers. Written by the operator only.")
    public BenchmarkSuiteStatus getStatus() {
        return super.getStatus();
    }
}
