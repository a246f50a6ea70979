package dev.pacer.engine.plan;

import java.util.Set;

/**
 * pacer's own images named as the examples name them, without a registry ({@code pacer/server-jetty12:0.1.0}): on a
 * cluster they resolve to the registry pacer was installed from (the chart's {@code image.registry}), so that every
 * example and suite runs unmodified after {@code helm install --set image.registry=R}. A reference with a registry host
 * ({@code registry.example.com/pacer/server-jetty12:0.1.0}), or naming an image pacer does not build, is used as written.
 *
 * @param registry where pacer's images were pushed, e.g. {@code registry.example.com/pacer}; {@value #NAMESPACE}: as written
 */
public record OwnImages(String registry) {
    /** The repository namespace the examples name pacer's images in. */
    public static final String NAMESPACE = "pacer";
    /** Images as written: the registry is the examples' own namespace. */
    public static final OwnImages AS_WRITTEN = new OwnImages(NAMESPACE);
    /** The images pacer builds (the Maven modules' {@code pacer.image.name}). */
    public static final Set<String> NAMES = Set.of("server-jetty12", "server-jetty12-ee9", "server-jetty11", "server-loom",
            "server-gohttp", "loadgen", "probe", "operator");

    public OwnImages {
        registry = registry == null || registry.isBlank() ? NAMESPACE : registry.strip().replaceAll("/+$", "");
    }

    /** {@code image} from this registry when it is one of pacer's own named without a registry; else as written. */
    public String resolve(String image) {
        if (image == null || !image.startsWith(NAMESPACE + "/")) {
            return image;
        }
        String nameAndTag = image.substring(NAMESPACE.length() + 1);
        String name = nameAndTag.split("[:@]", 2)[0];
        return NAMES.contains(name) ? registry + "/" + nameAndTag : image;
    }
}
