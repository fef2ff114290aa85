package dev.cellar.operator.primary;

import dev.cellar.api.v1.Database;
import dev.cellar.operator.Keys;
import dev.cellar.operator.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Map;

/** Labels each database pod primary or replica; the read-only Service selects on the label. */
public final class PodRoles {
  private PodRoles() {}

  public static void label(Database db, Context<Database> context) {
    String primary = Topology.of(db).primaryPod();
    for (Pod pod : context.getSecondaryResources(Pod.class)) {
      String role =
          pod.getMetadata().getName().equals(primary) ? Keys.ROLE_PRIMARY : Keys.ROLE_REPLICA;
      Map<String, String> labels = pod.getMetadata().getLabels();
      if (!role.equals(labels.get(Keys.ROLE))) {
        // A merge patch without resourceVersion: kwok and the kubelet update pods all the time.
        try {
          context
              .getClient()
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName())
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  "{\"metadata\":{\"labels\":{\"" + Keys.ROLE + "\":\"" + role + "\"}}}");
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404) {
            throw e;
          }
        }
      }
    }
  }
}
