package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.topology.Topology;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;

/**
 * The read-write Service {@code <name>}: it selects the pod labelled {@code
 * cellar.dev/role=primary}, which only the operator sets (on {@code status.currentPrimary}).
 */
@KubernetesDependent(useSSA = BooleanWithUndefined.FALSE)
public class PrimaryServiceDependent extends ServiceChild {
  @Override
  protected String childName(Topology topology) {
    return topology.primaryService();
  }

  @Override
  protected Map<String, String> selector(Database db) {
    return databasePodsWith(db, Keys.ROLE, Keys.ROLE_PRIMARY);
  }
}
