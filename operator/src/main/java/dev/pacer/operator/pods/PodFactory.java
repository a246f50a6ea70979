package dev.pacer.operator.pods;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.pacer.api.BenchmarkRun;
import dev.pacer.api.PodSettings;
import dev.pacer.contract.AgentContract;
import dev.pacer.contract.HostPort;
import dev.pacer.engine.plan.RunPlan;
import dev.pacer.operator.ProbeSettings;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * The desired Pods of a run, without I/O: one server, one per client. What every pod gets:
 * <ul>
 *   <li>labels {@code app.kubernetes.io/name=pacer}, {@code app.kubernetes.io/managed-by=pacer-operator},
 *       {@code pacer.dev/run}, {@code pacer.dev/role} ({@code server}/{@code client}), {@code pacer.dev/client};</li>
 *   <li>an owner reference to the BenchmarkRun (controller), so deleting the run deletes its pods;</li>
 *   <li>the {@code restricted} Pod Security Standard: non-root (uid 65532), no privilege escalation, every capability
 *       dropped, seccomp {@code RuntimeDefault}, read-only root filesystem with an {@code emptyDir} on {@code /tmp},
 *       no service-account token; the role's own volumes and mounts ({@code pod.volumes}, e.g. a server's
 *       configuration) beside it;</li>
 *   <li>when the role is pinned ({@code placement.pinCpus}, or the role's own {@code pinCpus}): requests = limits with whole CPUs, so the pod is Guaranteed and the static CPU
 *       manager gives it exclusive cores; {@code -XX:ActiveProcessorCount} matches them;</li>
 *   <li>with {@code placement.separateNodes}: required anti-affinity between the server and the clients; the clients
 *       spread over their nodes (preferred anti-affinity among them);</li>
 *   <li>the role's node selector and tolerations; {@code restartPolicy: Never} (a restarted agent loses its
 *       histograms: the run fails instead); readiness on the agent's {@code /healthz}, or for a
 *       server without the agent ({@code measure: probe/none}) on its port or {@code readinessPath}.</li>
 * </ul>
 */
public final class PodFactory {
    public static final String MANAGED_BY = "pacer-operator";
    public static final String LABEL_RUN = "pacer.dev/run";
    public static final String LABEL_ROLE = "pacer.dev/role";
    public static final String LABEL_CLIENT = "pacer.dev/client";
    public static final String ROLE_SERVER = "server";
    public static final String ROLE_CLIENT = "client";
    /** The probe pod's role label; in results and the agent contract the probe answers as {@code AgentContract.ROLE_PROBE}. */
    public static final String ROLE_PROBE = "probe";
    /** On a probe pod, which lives outside its run's namespace. */
    public static final String LABEL_RUN_NAMESPACE = "pacer.dev/run-namespace";
    public static final int ADMIN_PORT = AgentContract.DEFAULT_ADMIN_PORT;
    public static final long NON_ROOT_UID = 65532;
    static final String HOSTNAME_TOPOLOGY = "kubernetes.io/hostname";

    private PodFactory() {
    }

    public static String serverPodName(BenchmarkRun run) {
        return run.getMetadata().getName() + "-server";
    }

    public static String clientPodName(BenchmarkRun run, RunPlan.ClientRole client) {
        return run.getMetadata().getName() + "-" + client.name();
    }

    public static Pod serverPod(BenchmarkRun run, RunPlan plan) {
        RunPlan.Placement placement = plan.placement();
        RunPlan.ServerRole server = plan.server();
        List<String> args = new ArrayList<>(server.args());
        if (server.measure().agent()) {
            args.add("--port=" + server.port());   // pacer's servers take their port so; any other server gets PORT only
            if (plan.tls() != null) {
                args.addAll(plan.tls().serverArgs(TlsFactory.MOUNT_PATH + "/" + TlsFactory.CERTIFICATE,
                        TlsFactory.MOUNT_PATH + "/" + TlsFactory.KEY));
            }
        }
        ContainerBuilder builder = container(ROLE_SERVER, placement.server().pod(), server.image(), args, server.jvmOptions(),
                server.cpuMillis(), server.memory(), placement.server().pinCpus(), plan)
                .addNewPort().withName("http").withContainerPort(server.port()).endPort();
        if (server.command() != null) {
            builder.withCommand(server.command());
        }
        if (plan.tls() != null) {   // any server: where its certificate and key are
            builder.addToVolumeMounts(TlsFactory.mount())
                    .addNewEnv().withName(AgentContract.TLS_CERT_ENV).withValue(TlsFactory.MOUNT_PATH + "/" + TlsFactory.CERTIFICATE).endEnv()
                    .addNewEnv().withName(AgentContract.TLS_KEY_ENV).withValue(TlsFactory.MOUNT_PATH + "/" + TlsFactory.KEY).endEnv();
        }
        if (!server.measure().agent()) {
            if (server.readinessPath() != null) {
                builder.withStartupProbe(appStartup(server, plan.tls() != null));
            }
            builder.withReadinessProbe(appReadiness())
                    .addNewEnv().withName("PORT").withValue(Integer.toString(server.port())).endEnv();   // the common convention
        }
        Container container = builder.build();
        Pod pod = pod(run, serverPodName(run), ROLE_SERVER, null, container, placement.server(),
                placement.separateNodes() ? antiAffinity(run, ROLE_CLIENT) : null);
        if (plan.tls() != null) {
            pod.getSpec().getVolumes().add(TlsFactory.volume(run, plan, true));
        }
        return pod;
    }

    public static Pod clientPod(BenchmarkRun run, RunPlan plan, RunPlan.ClientRole client) {
        RunPlan.Placement placement = plan.placement();
        ContainerBuilder builder = container(ROLE_CLIENT, placement.clients().pod(), client.image(), List.of(), client.jvmOptions(), client.cpuMillis(),
                client.memory(), placement.clients().pinCpus(), plan);
        if (plan.tls() != null) {
            builder.addToVolumeMounts(TlsFactory.mount());   // the certificate to trust; never the key
        }
        Pod pod = pod(run, clientPodName(run, client), ROLE_CLIENT, client.name(), builder.build(), placement.clients(),
                clientAffinity(run, placement.separateNodes()));
        if (plan.tls() != null) {
            pod.getSpec().getVolumes().add(TlsFactory.volume(run, plan, false));
        }
        return pod;
    }

    /**
     * The probe pod of a run, in the operator's namespace: its name holds the run's uid, so a run deleted and made
     * again under the same name never finds its predecessor's probe (watching an old address), and the run's name.
     */
    public static String probePodName(BenchmarkRun run) {
        String uid = run.getMetadata().getUid();
        String name = "probe-" + (uid == null ? "" : uid.substring(0, Math.min(8, uid.length())) + "-") + run.getMetadata().getName();
        return name.length() <= 63 ? name : name.substring(0, 63).replaceAll("[-.]+$", "");
    }

    /**
     * The kernel probe of a run ({@code measure: probe/both}) beside its ready server: on the server's node, watching
     * the server pod's address and port. It loads BPF programs, so it is the one pod of pacer's with privileges:
     * uid 0 with only CAP_BPF and CAP_PERFMON, no privilege escalation, a read-only root, no host namespace and no
     * token; the kernel's BTF comes from the container's read-only /sys. It runs in the operator's namespace, which
     * admits it; the run's namespace keeps enforcing {@code restricted}. A pod in another namespace cannot be owned by
     * the run: the cleanup deletes it, and its deadline (the run's timeout and ten minutes) ends it if the run is gone.
     */
    public static Pod probePod(BenchmarkRun run, RunPlan plan, ProbeSettings probe, String node, String serverAddress) {
        Map<String, String> labels = labels(run, ROLE_PROBE, null);
        labels.put(LABEL_RUN_NAMESPACE, run.getMetadata().getNamespace());
        PodSettings settings = plan.placement().server().pod();
        Container container = new ContainerBuilder()
                .withName(ROLE_PROBE)
                .withImage(probe.image())
                .withImagePullPolicy(settings.imagePullPolicy == null ? "IfNotPresent" : settings.imagePullPolicy)
                .withArgs("--listen=" + HostPort.of(serverAddress, plan.server().port()))
                .addNewEnv().withName("PACER_ADMIN_PORT").withValue(Integer.toString(ADMIN_PORT)).endEnv()
                .addNewEnv().withName("PACER_SAMPLE_PERIOD_MS").withValue(Long.toString(plan.samplePeriod().toMillis())).endEnv()
                .addNewPort().withName("admin").withContainerPort(ADMIN_PORT).endPort()
                .withNewReadinessProbe().withNewHttpGet().withPath("/healthz").withNewPort("admin").endHttpGet()
                .withPeriodSeconds(1).withFailureThreshold(3).endReadinessProbe()
                // no CPU request: on a node whose allocatable CPUs the pinned server holds, any request would keep it off
                .withNewResources().addToRequests("memory", new Quantity("64Mi")).addToLimits("memory", new Quantity("128Mi")).endResources()
                .withNewSecurityContext()
                .withRunAsUser(0L).withRunAsNonRoot(false).withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true)
                .withNewCapabilities().withDrop("ALL").withAdd("BPF", "PERFMON").endCapabilities()
                .endSecurityContext()
                .build();
        return new PodBuilder()
                .withNewMetadata().withName(probePodName(run)).withNamespace(probe.namespace()).withLabels(labels).endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .withRestartPolicy("Never")
                .withActiveDeadlineSeconds(plan.timeout().toSeconds() + 600)
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withNewSecurityContext().withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().endSecurityContext()
                .withPriorityClassName(settings.priorityClassName)
                // the operator's namespace: its own secrets, not the run's (spec.server.pod names secrets of the run's)
                .withImagePullSecrets(probe.imagePullSecrets().stream().map(LocalObjectReference::new).toList())
                .withTolerations(new TolerationBuilder().withOperator("Exists").build())   // wherever the server runs
                .withContainers(container)
                .endSpec()
                .build();
    }

    public static Map<String, String> labels(BenchmarkRun run, String role, String clientName) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("app.kubernetes.io/name", "pacer");
        labels.put("app.kubernetes.io/managed-by", MANAGED_BY);
        labels.put(LABEL_RUN, run.getMetadata().getName());
        labels.put(LABEL_ROLE, role);
        if (clientName != null) {
            labels.put(LABEL_CLIENT, clientName);
        }
        return labels;
    }

    private static ContainerBuilder container(String name, PodSettings settings, String image, List<String> args, List<String> jvmOptions,
                                              long cpuMillis, String memory, boolean pinCpus, RunPlan plan) {
        List<String> javaOptions = new ArrayList<>();
        if (pinCpus) {
            javaOptions.add("-XX:ActiveProcessorCount=" + Math.max(1, cpuMillis / 1000));
        }
        javaOptions.addAll(jvmOptions);
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVar("PACER_ADMIN_PORT", Integer.toString(ADMIN_PORT), null));
        env.add(new EnvVar("PACER_SAMPLE_PERIOD_MS", Long.toString(plan.samplePeriod().toMillis()), null));
        if (!javaOptions.isEmpty()) {
            env.add(new EnvVar("JAVA_TOOL_OPTIONS", String.join(" ", javaOptions), null));
        }
        return new ContainerBuilder()
                .withName(name)
                .withImage(image)
                .withImagePullPolicy(settings.imagePullPolicy == null ? "IfNotPresent" : settings.imagePullPolicy)
                .withArgs(args)
                .withEnv(env)
                .addAllToEnv(settings.env == null ? List.of() : settings.env.stream()
                        .map(e -> Serialization.jsonMapper().convertValue(e, EnvVar.class)).toList())
                .addNewPort().withName("admin").withContainerPort(ADMIN_PORT).endPort()
                .withNewReadinessProbe().withNewHttpGet().withPath("/healthz").withNewPort("admin").endHttpGet()
                .withPeriodSeconds(1).withFailureThreshold(3).endReadinessProbe()
                .withResources(resources(cpuMillis, memory, pinCpus))
                .withNewSecurityContext()
                .withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true).withRunAsNonRoot(true)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .endSecurityContext()
                .addNewVolumeMount().withName(PodSettings.RESERVED_VOLUME).withMountPath(PodSettings.RESERVED_MOUNT_PATH).endVolumeMount()
                .addAllToVolumeMounts(converted(settings.volumeMounts, VolumeMount.class));
    }

    /** The user's items of a pod spec (volumes, mounts), as the API server's types; it checks them when the pod is created. */
    private static <T> List<T> converted(List<Map<String, Object>> items, Class<T> type) {
        return items == null ? List.of() : items.stream().map(item -> Serialization.jsonMapper().convertValue(item, type)).toList();
    }

    /** A server without the agent is ready when its port accepts connections, or its readiness path answers 2xx. */
    /**
     * A server without the agent is ready once its port accepts connections: a connection that sends nothing is no
     * request to the kernel probe, whereas the kubelet's HTTP checks every second would be timed as the server's.
     */
    static Probe appReadiness() {
        return new ProbeBuilder().withPeriodSeconds(1).withFailureThreshold(3).withNewTcpSocket().withNewPort("http").endTcpSocket().build();
    }

    /**
     * With {@code readinessPath}, the path must answer 2xx once before the server counts as started (the readiness
     * checks wait for it); the kubelet asks it no more afterwards, before the probe attaches, so none is timed.
     */
    static Probe appStartup(RunPlan.ServerRole server, boolean https) {
        return new ProbeBuilder().withPeriodSeconds(1).withFailureThreshold(300)
                .withNewHttpGet().withPath(server.readinessPath()).withNewPort("http").withScheme(https ? "HTTPS" : "HTTP").endHttpGet().build();
    }

    /**
     * Pinned: requests = limits, whole CPUs (Guaranteed QoS). Otherwise: CPU requested, not limited (Burstable, shared
     * pool); 0 CPUs asks for none, for clients that share the node's reserved CPUs (a one-CPU node where the server
     * takes the rest). Memory is limited either way.
     */
    static ResourceRequirements resources(long cpuMillis, String memory, boolean pinCpus) {
        Map<String, Quantity> amounts = new LinkedHashMap<>();
        if (pinCpus || cpuMillis > 0) {   // unpinned with 0 CPUs: no request, the pod runs in the shared pool
            amounts.put("cpu", pinCpus ? new Quantity(Long.toString(cpuMillis / 1000)) : new Quantity(cpuMillis + "m"));
        }
        amounts.put("memory", new Quantity(memory));
        ResourceRequirementsBuilder builder = new ResourceRequirementsBuilder().withRequests(amounts);
        // a memory limit always: without one the JVM sizes its heap (MaxRAMPercentage) to the whole node
        return builder.withLimits(pinCpus ? new LinkedHashMap<>(amounts) : Map.of("memory", new Quantity(memory))).build();
    }

    /** The user's affinity with pacer's anti-affinity terms (the roles' separation, the clients' spread) added to its own. */
    static Affinity combined(Affinity separation, Affinity user) {
        if (user == null) {
            return separation;
        }
        AffinityBuilder builder = new AffinityBuilder(user);
        if (separation != null) {
            if (user.getPodAntiAffinity() == null) {
                builder.withPodAntiAffinity(separation.getPodAntiAffinity());
            } else {
                builder.editPodAntiAffinity()
                        .addAllToRequiredDuringSchedulingIgnoredDuringExecution(separation.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                        .addAllToPreferredDuringSchedulingIgnoredDuringExecution(separation.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
                        .endPodAntiAffinity();
            }
        }
        return builder.build();
    }

    /**
     * A client's: off the server's node with {@code separateNodes} (required), and spread over the nodes its selector
     * allows, one client per node while there are nodes enough (preferred): as Jetty's clients each have a machine,
     * four clients on two nodes are two and two, not four on one.
     */
    private static Affinity clientAffinity(BenchmarkRun run, boolean separateNodes) {
        AffinityBuilder builder = separateNodes ? new AffinityBuilder(antiAffinity(run, ROLE_SERVER)) : new AffinityBuilder().withNewPodAntiAffinity().endPodAntiAffinity();
        return builder.editPodAntiAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(100)
                .withNewPodAffinityTerm().withTopologyKey(HOSTNAME_TOPOLOGY)
                .withNewLabelSelector()
                .addToMatchLabels(LABEL_RUN, run.getMetadata().getName())
                .addToMatchLabels(LABEL_ROLE, ROLE_CLIENT)
                .endLabelSelector()
                .endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity().build();
    }

    private static Affinity antiAffinity(BenchmarkRun run, String otherRole) {
        return new AffinityBuilder().withNewPodAntiAffinity()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withTopologyKey(HOSTNAME_TOPOLOGY)
                .withNewLabelSelector()
                .addToMatchLabels(LABEL_RUN, run.getMetadata().getName())
                .addToMatchLabels(LABEL_ROLE, otherRole)
                .endLabelSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity().build();
    }

    private static Pod pod(BenchmarkRun run, String name, String role, String clientName, Container container,
                           RunPlan.RolePlacement placement, Affinity separation) {
        PodSettings settings = placement.pod();
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(run.getMetadata().getNamespace())
                .withLabels(labels(run, role, clientName))
                .withAnnotations(settings.annotations == null || settings.annotations.isEmpty() ? null : new LinkedHashMap<>(settings.annotations))
                .withOwnerReferences(ownerReference(run))
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false)
                .withNewSecurityContext()
                .withRunAsNonRoot(true).withRunAsUser(NON_ROOT_UID).withRunAsGroup(NON_ROOT_UID).withFsGroup(NON_ROOT_UID)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .endSecurityContext()
                .withNodeSelector(placement.nodeSelector().isEmpty() ? null : new LinkedHashMap<>(placement.nodeSelector()))
                .withTolerations(tolerations(placement))
                .withAffinity(combined(separation, settings.affinity == null ? null
                        : Serialization.jsonMapper().convertValue(settings.affinity, Affinity.class)))
                .withPriorityClassName(settings.priorityClassName)
                .withImagePullSecrets(settings.imagePullSecrets == null ? List.of()
                        : settings.imagePullSecrets.stream().map(LocalObjectReference::new).toList())
                .withContainers(container)
                .addNewVolume().withName(PodSettings.RESERVED_VOLUME).withNewEmptyDir().withMedium("Memory").withSizeLimit(new Quantity("64Mi")).endEmptyDir().endVolume()
                .addAllToVolumes(converted(settings.volumes, Volume.class))
                .endSpec()
                .build();
    }

    private static List<Toleration> tolerations(RunPlan.RolePlacement placement) {
        List<Toleration> tolerations = new ArrayList<>();
        {
            for (Map<String, Object> t : placement.tolerations()) {
                TolerationBuilder builder = new TolerationBuilder()
                        .withKey((String) t.get("key")).withOperator((String) t.get("operator"))
                        .withValue((String) t.get("value")).withEffect((String) t.get("effect"));
                if (t.get("tolerationSeconds") instanceof Number seconds) {
                    builder.withTolerationSeconds(seconds.longValue());
                }
                tolerations.add(builder.build());
            }
        }
        return tolerations;
    }

    public static OwnerReference ownerReference(BenchmarkRun run) {
        return new OwnerReferenceBuilder().withApiVersion(BenchmarkRun.API_VERSION).withKind(BenchmarkRun.KIND)
                .withName(run.getMetadata().getName()).withUid(run.getMetadata().getUid())
                .withController(true).withBlockOwnerDeletion(true).build();
    }
}
