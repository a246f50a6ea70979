package dev.pacer.cli;

import java.nio.file.Path;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import picocli.CommandLine.Option;

/** {@code --kubeconfig}, shared by the commands that talk to a cluster, and the client it gives. */
final class KubeconfigOption {
    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "The kubeconfig (default: $KUBECONFIG, then ~/.kube/config).")
    Path kubeconfig;

    /** A client with the kubeconfig's credentials: this option's file, else fabric8's usual search. */
    KubernetesClient client() {
        if (kubeconfig != null) {
            System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, kubeconfig.toAbsolutePath().toString());
        }
        return new KubernetesClientBuilder().withConfig(Config.autoConfigure(null)).build();
    }
}
