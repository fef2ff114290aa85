package dev.cellar.operator.wiring;

import dev.cellar.api.v1.Database;
import dev.cellar.kubelean.ApiServerClient;
import dev.cellar.operator.certmanager.Certificate;
import dev.cellar.operator.prometheus.PodMonitor;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Set;

/** The operator's client of the API server: kube-lean's, told the kinds Cellar reads. */
public final class ApiServer {
  private ApiServer() {}

  /**
   * The kinds whose watch events the operator reads, which the client alone knows (kube-lean's
   * ApiServerSerialization says why); a kind missing here still works, the slow way. {@code
   * ApiServerTest} checks the workflow's kinds are all here. The Databases are the primary
   * resources.
   */
  public static final ApiServerClient.Kinds KINDS =
      new ApiServerClient.Kinds(
          List.of(
              Database.class,
              ConfigMap.class,
              Secret.class,
              Service.class,
              PersistentVolumeClaim.class,
              Pod.class,
              Event.class,
              StatefulSet.class,
              CronJob.class,
              Job.class,
              PodDisruptionBudget.class,
              NetworkPolicy.class,
              Lease.class,
              Certificate.class,
              PodMonitor.class,
              // a watch's ERROR event (410 Gone: list again) is told apart by its object being one
              Status.class),
          Set.of(Database.class));

  /** A client configured as kubectl would be (kubeconfig, in-cluster service account). */
  public static KubernetesClient client() {
    return ApiServerClient.create(KINDS);
  }
}
