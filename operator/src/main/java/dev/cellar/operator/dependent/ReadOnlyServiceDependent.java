package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;

/**
 * The read-only Service {@code <name>-ro}, for replicas > 1: it selects the pods the operator
 * labels {@code cellar.dev/role=replica} (every pod but the primary).
 */
@KubernetesDependent(useSSA = BooleanWithUndefined.FALSE)
public class ReadOnlyServiceDependent extends ServiceChild {
  public static final String ROLE_LABEL = "cellar.dev/role";
  public static final String REPLICA = "replica";
  public static final String PRIMARY = "primary";

  public static String name(Database db) {
    return db.getMetadata().getName() + "-ro";
  }

  /** The replicas' DNS name. */
  public static String host(Database db) {
    return dnsName(name(db), db);
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  @Override
  protected Map<String, String> selector(Database db) {
    return databasePodsWith(db, ROLE_LABEL, REPLICA);
  }
}
