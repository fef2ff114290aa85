package dev.cellar.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the client, the reconciler and the configuration from the environment, and starts. */
public final class CellarOperator {
  private static final Logger log = LoggerFactory.getLogger(CellarOperator.class);

  private CellarOperator() {}

  public static void main(String[] args) {
    KubernetesClient client = new KubernetesClientBuilder().build();
    Operator operator = create(client, namespaces(System.getenv("WATCH_NAMESPACES")));
    Runtime.getRuntime().addShutdownHook(new Thread(operator::stop, "cellar-shutdown"));
    operator.start();
    log.info("Cellar operator started against {}", client.getMasterUrl());
  }

  /** An operator that reconciles Databases in {@code namespaces} (empty: all). */
  public static Operator create(KubernetesClient client, Set<String> namespaces) {
    Operator operator = new Operator(o -> o.withKubernetesClient(client));
    operator.register(
        new DatabaseReconciler(),
        c -> {
          if (!namespaces.isEmpty()) {
            c.settingNamespaces(namespaces);
          }
        });
    return operator;
  }

  static Set<String> namespaces(String value) {
    if (value == null || value.isBlank()) {
      return Set.of();
    }
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }
}
