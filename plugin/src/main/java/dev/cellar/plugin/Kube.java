package dev.cellar.plugin;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The connection kubectl would make with the same flags: {@code --kubeconfig} (else KUBECONFIG,
 * else ~/.kube/config), {@code --context} (else the current context), {@code -n} (else the
 * context's namespace, else {@code default}).
 */
public record Kube(String kubeconfig, String context, String namespaceFlag) {

  static Kube of(Args args) {
    return new Kube(
        args.option("kubeconfig").orElse(null),
        args.option("context").orElse(null),
        args.option("namespace").orElse(null));
  }

  Config config() throws Args.UsageException {
    if (kubeconfig != null) {
      if (!Files.isReadable(Path.of(kubeconfig))) {
        throw new Args.UsageException("cannot read --kubeconfig " + kubeconfig);
      }
      System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, kubeconfig);
    }
    // No requests to the cluster's /version, no 10 retries with back-off on a wrong address.
    System.setProperty(Config.KUBERNETES_REQUEST_RETRY_BACKOFFLIMIT_SYSTEM_PROPERTY, "1");
    Config config = Config.autoConfigure(context);
    if (context != null
        && (config.getCurrentContext() == null
            || !context.equals(config.getCurrentContext().getName()))) {
      throw new Args.UsageException("context " + context + " was not found in the kubeconfig");
    }
    return config;
  }

  /** The namespace to work in: the flag, else the context's, else default. */
  String namespace(Config config) {
    if (namespaceFlag != null && !namespaceFlag.isBlank()) {
      return namespaceFlag;
    }
    String fromContext = config.getNamespace();
    return fromContext == null || fromContext.isBlank() ? "default" : fromContext;
  }

  KubernetesClient client(Config config) {
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** The same connection flags for a kubectl child process (psql and mysql). */
  List<String> kubectlFlags(String namespace) {
    List<String> flags = new ArrayList<>();
    if (kubeconfig != null) {
      flags.add("--kubeconfig=" + kubeconfig);
    }
    if (context != null) {
      flags.add("--context=" + context);
    }
    flags.add("--namespace=" + namespace);
    return flags;
  }
}
