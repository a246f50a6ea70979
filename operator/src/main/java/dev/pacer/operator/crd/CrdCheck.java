package dev.pacer.operator.crd;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * Whether the CRDs installed in the cluster know every field this operator writes. Helm installs {@code crds/} once
 * and never upgrades them; with an older CRD the API server drops the fields it does not know from every status the
 * operator writes (results lost, a run's artifacts unreachable). The operator compares each installed schema with
 * the one it was built with (generated into the api module's {@code META-INF/fabric8/}) and refuses to start when a
 * field is missing, naming the fields and the fix.
 */
public final class CrdCheck {
    /** The CRDs the operator owns, by name, and the generated file each was built from. */
    public static final Map<String, String> CRDS = Map.of(
            "benchmarkruns.pacer.dev", "META-INF/fabric8/benchmarkruns.pacer.dev-v1.yml",
            "benchmarksuites.pacer.dev", "META-INF/fabric8/benchmarksuites.pacer.dev-v1.yml",
            "benchmarkschedules.pacer.dev", "META-INF/fabric8/benchmarkschedules.pacer.dev-v1.yml");

    private CrdCheck() {
    }

    /** What the check found: a CRD it could not read says so without failing (e.g. RBAC withheld). */
    public record Outcome(List<String> outdated, List<String> unreadable) {
        public boolean passed() {
            return outdated.isEmpty();
        }
    }

    public static Outcome check(KubernetesClient client) {
        List<String> outdated = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (Map.Entry<String, String> crd : new TreeMap<>(CRDS).entrySet()) {
            CustomResourceDefinition installed;
            try {
                installed = client.apiextensions().v1().customResourceDefinitions().withName(crd.getKey()).get();
            } catch (KubernetesClientException e) {
                unreadable.add(crd.getKey() + " (HTTP " + e.getCode() + ")");
                continue;
            }
            if (installed == null) {
                outdated.add(crd.getKey() + " is not installed");
                continue;
            }
            Set<String> missing = missingFields(bundled(crd.getValue()), installed);
            if (!missing.isEmpty()) {
                outdated.add(crd.getKey() + " lacks " + String.join(", ", missing));
            }
        }
        return new Outcome(outdated, unreadable);
    }

    static CustomResourceDefinition bundled(String resource) {
        try (InputStream in = CrdCheck.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath (pacer-api generates it)");
            }
            return Serialization.unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The field paths of the expected CRD's served versions that the installed one does not declare. */
    public static Set<String> missingFields(CustomResourceDefinition expected, CustomResourceDefinition installed) {
        Set<String> missing = new TreeSet<>();
        for (CustomResourceDefinitionVersion version : expected.getSpec().getVersions()) {
            Optional<CustomResourceDefinitionVersion> same = installed.getSpec().getVersions().stream()
                    .filter(v -> v.getName().equals(version.getName())).findFirst();
            if (same.isEmpty()) {
                missing.add("version " + version.getName());
                continue;
            }
            Set<String> have = new TreeSet<>();
            paths(same.get().getSchema().getOpenAPIV3Schema(), "", have);
            Set<String> want = new TreeSet<>();
            paths(version.getSchema().getOpenAPIV3Schema(), "", want);
            want.removeAll(have);
            // report the shallowest: status.artifacts, not also status.artifacts.path
            for (String path : want) {
                if (missing.stream().noneMatch(m -> path.startsWith(m + "."))) {
                    missing.add(path);
                }
            }
        }
        return missing;
    }

    private static void paths(JSONSchemaProps schema, String prefix, Set<String> into) {
        if (schema == null) {
            return;
        }
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((name, child) -> {
                String path = prefix.isEmpty() ? name : prefix + "." + name;
                into.add(path);
                paths(child, path, into);
            });
        }
        if (schema.getItems() != null && schema.getItems().getSchema() != null) {
            paths(schema.getItems().getSchema(), prefix + "[]", into);
        }
        if (schema.getAdditionalProperties() != null && schema.getAdditionalProperties().getSchema() != null) {
            paths(schema.getAdditionalProperties().getSchema(), prefix + "{}", into);
        }
    }
}
