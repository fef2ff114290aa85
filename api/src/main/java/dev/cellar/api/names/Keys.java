package dev.cellar.api.names;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every label, annotation and Secret key Cellar reads or writes, and the label sets built from
 * them. Informers select on {@link #MANAGED_BY}, so unrelated objects are never cached. The
 * operator and the kubectl plugin both name them from here.
 */
public final class Keys {
  // Labels every child carries.
  public static final String NAME = "app.kubernetes.io/name";
  public static final String INSTANCE = "app.kubernetes.io/instance";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String PART_OF = "app.kubernetes.io/part-of";

  /** The operator's name: the managed-by value, and the source of its Events. */
  public static final String OPERATOR = "cellar-operator";

  /** The label selector of every informer on children. */
  public static final String MANAGED_SELECTOR = MANAGED_BY + "=" + OPERATOR;

  /** The selector of the engines' shared scripts ConfigMaps. */
  public static final String SCRIPTS_SELECTOR = MANAGED_SELECTOR + "," + COMPONENT + "=scripts";

  /** The selector of the children of one Database (the scripts ConfigMaps are no one's). */
  public static final String CHILD_SELECTOR = MANAGED_SELECTOR + "," + COMPONENT + "!=scripts";

  /**
   * The role label on database pods: the Services select on it, and each pod's entrypoint reads it
   * (a downward API volume) to start as the primary or as a replica. Only the operator sets it.
   */
  public static final String ROLE = "cellar.dev/role";

  public static final String ROLE_PRIMARY = "primary";
  public static final String ROLE_REPLICA = "replica";

  /** The label the StatefulSet controller puts on each pod with its template's revision. */
  public static final String REVISION = "controller-revision-hash";

  /** The label the StatefulSet controller puts on each pod with its own name. */
  public static final String POD_NAME = "statefulset.kubernetes.io/pod-name";

  /** The node label the kubelet sets to the node's name: the topology of "one node". */
  public static final String HOSTNAME = "kubernetes.io/hostname";

  // Annotations.
  /** On the StatefulSet: the version that runs, so version rules survive a lost status. */
  public static final String VERSION_ANNOTATION = "cellar.dev/version";

  /**
   * On the StatefulSet after a major upgrade by dump and restore (PostgreSQL): the version the data
   * came from, and the image that dumped it (the init container runs it; the new pods find their
   * new data directory by it).
   */
  public static final String UPGRADED_FROM_ANNOTATION = "cellar.dev/upgraded-from";

  public static final String UPGRADED_FROM_IMAGE_ANNOTATION = "cellar.dev/upgraded-from-image";

  /** On the pod template: a hash of the ConfigMap's files, so a changed script rolls the pods. */
  public static final String CONFIG_HASH_ANNOTATION = "cellar.dev/config-hash";

  /**
   * On the primary pod while the Database has never been available: its entrypoint may initialise
   * an empty data volume. Without it, a primary whose volume is empty waits for a failover instead
   * of starting empty.
   */
  public static final String BOOTSTRAP_ANNOTATION = "cellar.dev/bootstrap";

  /** On a Database: a planned switchover to the named pod; removed when done. */
  public static final String SWITCHOVER_ANNOTATION = "cellar.dev/switchover-to";

  /**
   * On a Database: asks for a backup now; any new value (e.g. a timestamp) asks again. Cellar runs
   * one Job per value and removes the annotation once that Job has ended.
   */
  public static final String BACKUP_NOW_ANNOTATION = "cellar.dev/backup-now";

  /**
   * On a Database: asks for the newest stored dump to be verified again now (read back from the
   * volume or the bucket and restored into a throwaway server), which catches a dump damaged after
   * it was written. Any new value asks again; handled like {@link #BACKUP_NOW_ANNOTATION}.
   */
  public static final String VERIFY_NOW_ANNOTATION = "cellar.dev/verify-now";

  /**
   * On a backup Job: its result, one line of JSON from the container's termination message,
   * recorded by the operator when the Job ends (the Job keeps what its pod reported).
   */
  public static final String BACKUP_RESULT_ANNOTATION = "cellar.dev/backup-result";

  /** On a backup Job: scheduled (the CronJob's), on-demand, or verify (a stored dump checked). */
  public static final String BACKUP_TRIGGER_LABEL = "cellar.dev/backup-trigger";

  public static final String TRIGGER_SCHEDULED = "scheduled";
  public static final String TRIGGER_ON_DEMAND = "on-demand";
  public static final String TRIGGER_VERIFY = "verify";

  /** The label the Job controller puts on a Job's pods with the Job's name. */
  public static final String JOB_NAME = "batch.kubernetes.io/job-name";

  /** On a StorageClass: the cluster's default class. */
  public static final String DEFAULT_CLASS_ANNOTATION =
      "storageclass.kubernetes.io/is-default-class";

  /** Keys of the credentials Secret, which pods and users read. */
  public static final class Credentials {
    public static final String USERNAME = "username";
    public static final String PASSWORD = "password";
    public static final String ROOT_PASSWORD = "root-password";
    public static final String DATABASE = "database";
    public static final String HOST = "host";
    public static final String PORT = "port";
    public static final String URI = "uri";
    public static final String REPLICATION_USER = "replication-user";
    public static final String REPLICATION_PASSWORD = "replication-password";

    /** The CA that signs the servers' certificate, when TLS is on (see {@link Tls}). */
    public static final String CA_CERTIFICATE = Tls.CA_CERTIFICATE;

    private Credentials() {}
  }

  /**
   * Keys of the monitoring Secret {@code <name>-monitoring}: the exporter's own account, which the
   * primary creates with the least privileges the exporter needs.
   */
  public static final class Monitoring {
    public static final String USER = "monitoring-user";
    public static final String PASSWORD = "monitoring-password";

    /** The exporter's port name, on the pods and on the headless Service. */
    public static final String PORT_NAME = "metrics";

    /** The exporter sidecar's container name. */
    public static final String CONTAINER = "exporter";

    private Monitoring() {}
  }

  /**
   * Keys of the TLS Secrets: the CA Secret holds {@link #CA_CERTIFICATE} and {@link #CA_KEY}; the
   * server certificate Secret (type kubernetes.io/tls) {@link #CERTIFICATE}, {@link #KEY} and
   * {@link #CA_CERTIFICATE}, as cert-manager writes them.
   */
  public static final class Tls {
    public static final String CA_CERTIFICATE = "ca.crt";
    public static final String CA_KEY = "ca.key";
    public static final String CERTIFICATE = "tls.crt";
    public static final String KEY = "tls.key";
    public static final String SECRET_TYPE = "kubernetes.io/tls";

    private Tls() {}
  }

  /** What a child is for. */
  public enum Component {
    DATABASE("database"),
    BACKUP("backup"),
    /** An engine's scripts ConfigMap, which every Database of that engine in a namespace mounts. */
    SCRIPTS("scripts");

    private final String value;

    Component(String value) {
      this.value = value;
    }

    public String value() {
      return value;
    }
  }

  private Keys() {}

  /** All labels of a child of {@code db}. */
  public static Map<String, String> labels(Database db, Component component) {
    Map<String, String> labels = new LinkedHashMap<>(selector(db, component));
    labels.put(MANAGED_BY, OPERATOR);
    labels.put(PART_OF, "cellar");
    return labels;
  }

  /** The labels of {@code engine}'s scripts ConfigMap: Cellar's, and no Database's instance. */
  public static Map<String, String> scriptsLabels(Engine engine) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, engine.value());
    labels.put(COMPONENT, Component.SCRIPTS.value());
    labels.put(MANAGED_BY, OPERATOR);
    labels.put(PART_OF, "cellar");
    return labels;
  }

  /** The labels that select {@code db}'s pods of one component (stable for a StatefulSet). */
  public static Map<String, String> selector(Database db, Component component) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, db.getSpec().getEngine().value());
    labels.put(INSTANCE, db.getMetadata().getName());
    labels.put(COMPONENT, component.value());
    return labels;
  }
}
