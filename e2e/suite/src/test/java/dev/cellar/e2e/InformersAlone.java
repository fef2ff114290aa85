package dev.cellar.e2e;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;

/**
 * The memory floor of Cellar's stack, not of Cellar: a JVM that does nothing but keep fabric8's
 * informers on the kinds Cellar's informers watch, with their selectors, each object cached whole
 * as fabric8 reads it. No reconciler, no JOSDK, none of Cellar's pruning of the caches. {@code
 * ScaleBenchmark} runs it beside the Databases Cellar converged, with the operator's JVM options
 * and class path, and reports its peak RSS and live heap next to the operator's.
 *
 * <p>Prints {@value #SYNCED} once every informer has listed its kind, then runs until stopped.
 */
public final class InformersAlone {
  static final String SYNCED = "informers synced";

  private InformersAlone() {}

  public static void main(String[] args) throws InterruptedException {
    KubernetesClient client = new KubernetesClientBuilder().build();
    client.resources(Database.class).inAnyNamespace().inform();
    for (Class<? extends HasMetadata> kind :
        List.of(
            StatefulSet.class,
            Pod.class,
            Service.class,
            Secret.class,
            ConfigMap.class,
            PersistentVolumeClaim.class,
            CronJob.class,
            Job.class,
            NetworkPolicy.class,
            PodDisruptionBudget.class)) {
      // inform() returns once the informer has listed its kind.
      client.resources(kind).inAnyNamespace().withLabelSelector(Keys.MANAGED_SELECTOR).inform();
    }
    // Cellar's two informers on Warnings (WarningEvents).
    for (String about : List.of("PersistentVolumeClaim", "StatefulSet")) {
      client
          .resources(Event.class)
          .inAnyNamespace()
          .withField("involvedObject.kind", about)
          .withField("type", "Warning")
          .inform();
    }
    System.out.println(SYNCED);
    Thread.currentThread().join();
  }
}
