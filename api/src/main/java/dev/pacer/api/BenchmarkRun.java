package dev.pacer.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
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
@AdditionalPrinterColumn(name = "AGE", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class BenchmarkRun extends CustomResource<BenchmarkRunSpec, BenchmarkRunStatus> implements Namespaced {
    public static final String GROUP = "pacer.dev";
    public static final String VERSION = "v1alpha1";
    public static final String KIND = "BenchmarkRun";
    public static final String PLURAL = "benchmarkruns";
    public static final String SHORT_NAME = "br";
    public static final String API_VERSION = GROUP + "/" + VERSION;
}
