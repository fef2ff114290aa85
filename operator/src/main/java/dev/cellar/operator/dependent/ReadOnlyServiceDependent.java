package dev.cellar.operator.dependent;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.topology.Topology;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;

/**
 * The read-only Service {@code <name>-ro}, for replicas > 1: it selects the pods the operator
 * labels {@code cellar.dev/role=replica} (every pod but the primary).
 */
@KubernetesDependent(useSSA = BooleanWithUndefined.FALSE)
public class ReadOnlyServiceDependent extends ServiceChild {
  @Override
  protected String childName(Topology topology) {
    return topology.readOnlyService();
  }

  @Override
  protected Map<String, String> selector(Database db) {
    return databasePodsWith(db, Keys.ROLE, Keys.ROLE_REPLICA);
  }
}
