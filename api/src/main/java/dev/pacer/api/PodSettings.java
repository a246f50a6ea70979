package dev.pacer.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.AnyType;

/** Pod settings of one role (the server, or every client), as in a pod spec; Kubernetes only. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public class PodSettings {
    /** Environment names pacer sets itself. */
    public static final List<String> RESERVED_ENV_PREFIXES = List.of("PACER_", "JAVA_TOOL_OPTIONS");
    /** The volume pacer gives every pod (an emptyDir on /tmp, the one writable path of its read-only root). */
    public static final String RESERVED_VOLUME = "tmp";
    public static final String RESERVED_MOUNT_PATH = "/tmp";
    /** Volume sources a pod of the {@code restricted} Pod Security Standard may not use, and pacer refuses. */
    public static final List<String> REFUSED_VOLUME_SOURCES = List.of("hostPath");

    @Size(max = 16)
    @JsonPropertyDescription("Secrets in the run's namespace holding the credentials to pull the image, by name.")
    public List<String> imagePullSecrets = new ArrayList<>();

    @Pattern("^(Always|IfNotPresent|Never)$")
    @JsonPropertyDescription("Always, IfNotPresent (default) or Never.")
    public String imagePullPolicy;

    @SchemaFrom(type = AnyType.class)
    @Size(max = BenchmarkRunSpec.MAX_LIST_ITEMS)
    @JsonPropertyDescription("More environment of the container, as in a pod spec ({name, value} or {name, valueFrom}); names starting with PACER_, and JAVA_TOOL_OPTIONS, are pacer's (use jvmOptions). The API server checks them when the pod is created.")
    public List<Map<String, Object>> env = new ArrayList<>();

    @Size(max = 64)
    @JsonPropertyDescription("Annotations of the pod, e.g. for a service mesh to leave it alone.")
    public Map<String, String> annotations = new LinkedHashMap<>();

    @JsonPropertyDescription("The pod's priority class.")
    public String priorityClassName;

    @SchemaFrom(type = AnyType.class)
    @JsonPropertyDescription("Affinity as in a pod spec (nodeAffinity, podAffinity, podAntiAffinity); combined with the anti-affinity of placement.separateNodes. The API server checks it when the pod is created.")
    public Map<String, Object> affinity;

    @SchemaFrom(type = AnyType.class)
    @Size(max = 16)
    @JsonPropertyDescription("More volumes of the pod, as in a pod spec (configMap, secret, emptyDir, ...), e.g. a server's configuration or a "
            + "path it must write beside /tmp; hostPath is refused, and 'tmp' is pacer's. The API server checks them when the pod is created.")
    public List<Map<String, Object>> volumes = new ArrayList<>();

    @SchemaFrom(type = AnyType.class)
    @Size(max = 16)
    @JsonPropertyDescription("Where the role's container mounts them, as in a container spec ({name, mountPath, subPath, readOnly}); "
            + "each names one of volumes; /tmp is pacer's.")
    public List<Map<String, Object>> volumeMounts = new ArrayList<>();
}
