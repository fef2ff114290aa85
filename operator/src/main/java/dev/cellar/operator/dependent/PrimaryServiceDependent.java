package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;

/** The read-write Service {@code <name>}: it selects pod 0, the primary, and nothing else. */
@KubernetesDependent(useSSA = BooleanWithUndefined.FALSE)
public class PrimaryServiceDependent extends ServiceChild {
  /** The label the StatefulSet controller puts on each pod with its own name. */
  static final String POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";

  public static String name(Database db) {
    return db.getMetadata().getName();
  }

  /** The primary's DNS name. */
  public static String host(Database db) {
    return dnsName(name(db), db);
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  @Override
  protected Map<String, String> selector(Database db) {
    return databasePodsWith(db, POD_NAME_LABEL, StatefulSetDependent.podName(db, 0));
  }
}
