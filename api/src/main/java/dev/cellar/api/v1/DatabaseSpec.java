package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.List;
import java.util.Map;
import lombok.Data;
import lombok.NoArgsConstructor;

/** What the user asks for. Validated by the API server through the CRD's schema and CEL rules. */
@Data
@NoArgsConstructor
@ValidationRule(
    value =
        "has(self.storageClassName) == has(oldSelf.storageClassName)"
            + " && (!has(self.storageClassName) || self.storageClassName == oldSelf.storageClassName)",
    message =
        "storageClassName is immutable: the data volumes already exist in their class; create a new"
            + " Database to move to another class",
    reason = "FieldValueForbidden")
public class DatabaseSpec {
  /** The most database pods a Database can have. */
  public static final int MAX_REPLICAS = 5;

  /** Sizes such as 512Mi, 100Gi or 2Ti. */
  public static final String SIZE_PATTERN = "^[0-9]+(Mi|Gi|Ti)$";

  /**
   * The largest volume Cellar asks for: 64Ti is the largest single block volume the big clouds
   * offer (AWS EBS io2 Block Express, Google Persistent Disk, Azure Ultra Disk), and far below what
   * a quantity can hold, so every admitted size is stored exactly as the operator writes it.
   */
  public static final String MAX_SIZE = "64Ti";

  /** The longest size string: a bound the API server's CEL cost estimate needs. */
  static final int SIZE_MAX_LENGTH = 32;

  /**
   * A size lies in (0, {@link #MAX_SIZE}]: a 0Mi volume cannot hold a database, nor be provisioned.
   * Not a transition rule, so it holds on create too; an unchanged size of a Database admitted
   * before it is left alone by the API server's validation ratcheting.
   */
  static final String SIZE_IN_BOUNDS =
      "!isQuantity(self) || (quantity(self).isGreaterThan(quantity('0'))"
          + " && quantity(self).compareTo(quantity('"
          + MAX_SIZE
          + "')) <= 0)";

  /** The message of {@link #SIZE_IN_BOUNDS}, after the field's name. */
  static final String SIZE_MESSAGE =
      " + (!quantity(self).isGreaterThan(quantity('0'))"
          + " ? ' must be more than 0, e.g. 10Gi: ' + self"
          + " : ' may be at most "
          + MAX_SIZE
          + ", the largest volume cloud block storage offers: ' + self)";

  /**
   * A container image reference as the kubelet parses it: {@code
   * [registry[:port]/]path[:tag][@digest]}, path components in lower case, e.g. {@code
   * postgres:16}, {@code mirror.example:5000/db/postgres:16.4} or {@code postgres@sha256:<64 hex
   * digits>}.
   */
  public static final String IMAGE_PATTERN =
      "^((\\[[a-fA-F0-9:]+\\]|([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
          + "(\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*)(:[0-9]+)?/)?"
          + "[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*"
          + "(:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})?"
          + "(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$";

  /** A DNS-1123 subdomain (a StorageClass's name), or empty for "no class". */
  public static final String STORAGE_CLASS_PATTERN =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$";

  /**
   * Bounds on the scheduling lists, far above what a pod needs, which the API server's CEL cost
   * estimate of the rules over their items requires.
   */
  static final int MAX_TOLERATIONS = 32;

  static final int MAX_SPREAD_CONSTRAINTS = 8;

  static final int MAX_NODE_SELECTOR = 32;

  /**
   * A DNS-1123 subdomain, as PriorityClass names are. The dot is {@code [.]}: it goes into a CEL
   * string literal, where a backslash would need escaping twice.
   */
  public static final String DNS_SUBDOMAIN =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /**
   * What the API server would refuse in a pod's tolerations, said at admission instead of as a
   * StatefulSet error: the field's rules from core/v1 validation that CEL can check.
   */
  static final String TOLERATIONS_VALID =
      "self.all(t, (!has(t.operator) || t.operator in ['Equal', 'Exists'])"
          + " && (!has(t.effect) || t.effect in ['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'])"
          + " && (!has(t.operator) || t.operator != 'Exists' || !has(t.value) || t.value == '')"
          + " && ((has(t.key) && t.key != '') || (has(t.operator) && t.operator == 'Exists'))"
          + " && (!has(t.tolerationSeconds) || (has(t.effect) && t.effect == 'NoExecute')))";

  static final String TOLERATIONS_MESSAGE =
      "'tolerations: operator is Equal or Exists; effect is NoSchedule, PreferNoSchedule or"
          + " NoExecute; Exists takes no value; an empty key needs operator Exists;"
          + " tolerationSeconds needs effect NoExecute'";

  /** The required fields and ranges of a TopologySpreadConstraint. */
  static final String SPREAD_VALID =
      "self.all(c, has(c.maxSkew) && c.maxSkew >= 1 && has(c.topologyKey) && c.topologyKey != ''"
          + " && has(c.whenUnsatisfiable)"
          + " && c.whenUnsatisfiable in ['DoNotSchedule', 'ScheduleAnyway']"
          + " && (!has(c.minDomains) || c.minDomains >= 1))";

  static final String SPREAD_MESSAGE =
      "'topologySpreadConstraints: each needs maxSkew (at least 1), a topologyKey and"
          + " whenUnsatisfiable (DoNotSchedule or ScheduleAnyway); minDomains is at least 1'";

  /** Versions such as 16, 16.4 or 8.0.36. */
  public static final String VERSION_PATTERN = "^[0-9]+(\\.[0-9]+){0,2}$";

  @JsonPropertyDescription(
      "Database engine: postgresql, mysql or mariadb. Immutable: a Database cannot change engine.")
  @Required
  @PrinterColumn(name = "ENGINE")
  @ValidationRule(
      value = "self == oldSelf",
      messageExpression =
          "'engine is immutable: this Database runs ' + oldSelf + '; create a new Database to run '"
              + " + self",
      reason = "FieldValueForbidden")
  private Engine engine;

  @JsonPropertyDescription(
      "Engine version, e.g. \"16\" or \"16.4\" (postgresql 13-18), \"8.4\" (mysql 8.0, 8.4, 9),"
          + " \"11.4\" (mariadb 10.6, 10.11, 11.4, 11.8). Minor and patch changes roll out; a"
          + " downgrade is refused. A postgresql major change (up to 17) is upgraded by dump and"
          + " restore: the old image dumps, the new restores into a new data directory on the same"
          + " volume (writes stop meanwhile), the old directory is kept and setting the old major"
          + " back runs it again; set spec.image with it when you name images. mysql and mariadb"
          + " majors roll out in place.")
  @Required
  @Pattern(VERSION_PATTERN)
  @Size(max = 32)
  // No CEL downgrade rule: spec may hold a version the operator refused, and CEL could then
  // forbid going back to the one that runs. The operator judges against what runs. This rule only
  // keeps each part a number that versions have (and that fits in an int).
  @ValidationRule(
      value = "!self.matches('[0-9]{10,}')",
      messageExpression = "'version parts may have at most 9 digits: ' + self",
      reason = "FieldValueInvalid")
  private String version;

  @JsonPropertyDescription(
      "Size of each data volume, e.g. 100Gi (Mi, Gi or Ti). It may grow (when the storage class"
          + " allows volume expansion), never shrink.")
  @Required
  @Pattern(SIZE_PATTERN)
  @Size(max = SIZE_MAX_LENGTH)
  @ValidationRule(
      value = "quantity(self).compareTo(quantity(oldSelf)) >= 0",
      messageExpression = "'storage can only grow: ' + oldSelf + ' -> ' + self + ' is a shrink'",
      reason = "FieldValueInvalid")
  private String storage;

  @JsonPropertyDescription(
      "Storage class of the data volumes; the cluster's default class when unset. Immutable.")
  @Pattern(STORAGE_CLASS_PATTERN)
  @Size(max = 253)
  private String storageClassName;

  @JsonPropertyDescription(
      "Number of database pods, 1 to 5. Pod 0 is the first primary (status.currentPrimary names"
          + " the primary after a failover); the others are streaming replicas behind <name>-ro.")
  @SpecReplicas
  @Default("1")
  @Min(1)
  @Max(MAX_REPLICAS)
  @PrinterColumn(name = "REPLICAS")
  private Integer replicas = 1;

  @JsonPropertyDescription(
      "Whether scheduled dumps run. Turning it off removes the CronJob and keeps the dumps.")
  @Default("true")
  private Boolean backupEnabled = true;

  @JsonPropertyDescription("Schedule, retention and volume size of the dumps.")
  @Default("{}")
  private BackupSpec backup = new BackupSpec();

  @JsonPropertyDescription(
      "Automatic failover (replicas > 1): when the primary has been unavailable for"
          + " delaySeconds, the most advanced ready replica is promoted, the Services follow it and"
          + " the former primary rejoins as a replica.")
  @Default("{}")
  private FailoverSpec failover = new FailoverSpec();

  @JsonPropertyDescription(
      "Where the data of a new Database comes from: fromBackup restores another Database's dump"
          + " (from its backups volume or a bucket) before the first start.")
  private BootstrapSpec bootstrap;

  @JsonPropertyDescription(
      "CPU, memory and ephemeral storage of each database container. Default: requests 100m /"
          + " 256Mi, limits 500m / 1Gi; ephemeralStorage requests 256Mi, limits 2Gi (none for a"
          + " Database restored from a backup, whose dump stays in the pod) unless given. A request may"
          + " not exceed its limit.")
  // The cpu rule is on DatabaseResources; one rule per annotated element (fabric8's apt generator).
  @ValidationRule(
      value = DatabaseResources.MEMORY_REQUEST_WITHIN_LIMIT,
      fieldPath = ".requests.memory",
      messageExpression = DatabaseResources.MEMORY_MESSAGE,
      reason = "FieldValueInvalid")
  private DatabaseResources resources;

  @JsonPropertyDescription(
      "Network isolation of the database port: a NetworkPolicy <name> admitting the Database's"
          + " own pods (replication), its backup Jobs, its namespace's pods and the clients named"
          + " here. On by default; enforced where the cluster's network plugin enforces"
          + " NetworkPolicies.")
  @Default("{}")
  private NetworkPolicySpec networkPolicy = new NetworkPolicySpec();

  @JsonPropertyDescription(
      "Replication of the replicas (replicas > 1): mode async (default) or sync, where a commit is"
          + " acknowledged only once a replica has it.")
  @Default("{}")
  private ReplicationSpec replication = new ReplicationSpec();

  @JsonPropertyDescription(
      "Encrypted connections: mode enabled (default), required or disabled; certificateSecret"
          + " brings your own certificate instead of the one Cellar issues and renews, issuerRef"
          + " has cert-manager issue it;"
          + " clientCertificates requires one of the application user.")
  @Default("{}")
  // Here rather than on TlsSpec, which has its rule (one rule per annotated element).
  @ValidationRule(
      value =
          "!has(self.clientCertificates) || !self.clientCertificates || ((!has(self.mode) ||"
              + " self.mode != 'disabled') && !has(self.certificateSecret) &&"
              + " !has(self.issuerRef))",
      fieldPath = ".clientCertificates",
      messageExpression =
          "has(self.certificateSecret) || has(self.issuerRef) ? 'tls.clientCertificates needs the"
              + " CA Cellar issues, which signs the client certificate: remove '"
              + " + (has(self.certificateSecret) ? 'tls.certificateSecret' : 'tls.issuerRef') + ',"
              + " or set tls.clientCertificates to false' : 'tls.clientCertificates needs TLS: set"
              + " tls.mode to enabled or required, or set tls.clientCertificates to false'",
      reason = "FieldValueForbidden")
  private TlsSpec tls = new TlsSpec();

  @JsonPropertyDescription(
      "Database metrics: enabled (default true) runs the engine's exporter as a sidecar on the"
          + " port named metrics, with its own least-privileged account (Secret <name>-monitoring).")
  @Default("{}")
  private MonitoringSpec monitoring = new MonitoringSpec();

  @JsonPropertyDescription(
      "Container image, for mirrors and air-gapped registries. Default: the engine's official image"
          + " at version (postgres:<version>, mysql:<version>, mariadb:<version>). A reference"
          + " [registry[:port]/]path[:tag][@digest], path in lower case.")
  @Pattern(IMAGE_PATTERN)
  @Size(max = 512)
  private String image;

  @JsonPropertyDescription(
      "What deleting the Database does to its data volumes, credentials Secret and backups:"
          + " Retain (default) keeps them for a new Database of the same name; Delete removes them.")
  @Default("Retain")
  private DeletionPolicy deletionPolicy = DeletionPolicy.Retain;

  @JsonPropertyDescription(
      "Stop every database pod and keep everything else: data volumes, credentials Secret,"
          + " Services and ConfigMap stay, and backups are paused (the CronJob is suspended)."
          + " Setting it back to false starts the pods again on the same volumes.")
  @Default("false")
  private Boolean hibernated = false;

  @JsonPropertyDescription(
      "Affinity of the database pods (core/v1 Affinity). Unless it sets podAntiAffinity, the pods"
          + " prefer nodes that run no other pod of this Database (weight 100, per"
          + " kubernetes.io/hostname), so one node's loss takes one replica.")
  private Affinity affinity;

  @JsonPropertyDescription("Tolerations of the database pods (core/v1 Toleration).")
  @ValidationRule(
      value = TOLERATIONS_VALID,
      messageExpression = TOLERATIONS_MESSAGE,
      reason = "FieldValueInvalid")
  @Size(max = MAX_TOLERATIONS)
  private List<Toleration> tolerations;

  @JsonPropertyDescription("Node labels the database pods require, e.g. {\"disktype\": \"ssd\"}.")
  @Size(max = MAX_NODE_SELECTOR)
  private Map<String, String> nodeSelector;

  @JsonPropertyDescription(
      "How the database pods spread across topology domains (core/v1 TopologySpreadConstraint);"
          + " maxSkew, topologyKey and whenUnsatisfiable are required.")
  @ValidationRule(
      value = SPREAD_VALID,
      messageExpression = SPREAD_MESSAGE,
      reason = "FieldValueInvalid")
  @Size(max = MAX_SPREAD_CONSTRAINTS)
  private List<TopologySpreadConstraint> topologySpreadConstraints;

  @JsonPropertyDescription(
      "PriorityClass of the database pods; a DNS subdomain such as high-priority. The class must"
          + " exist, or the pods cannot be created (Degraded says so).")
  @Size(max = 253)
  @ValidationRule(
      value = "self.matches('" + DNS_SUBDOMAIN + "')",
      messageExpression =
          "'priorityClassName must be a DNS subdomain (lower-case letters, digits, \\'-\\' and"
              + " \\'.\\', starting and ending with a letter or digit): ' + self",
      reason = "FieldValueInvalid")
  private String priorityClassName;

  /**
   * The size bounds of {@link #storage}. On the getter because fabric8's apt generator takes one
   * {@code @ValidationRule} per annotated element and merges a field's with its accessors'.
   */
  @ValidationRule(
      value = SIZE_IN_BOUNDS,
      messageExpression = "'storage'" + SIZE_MESSAGE,
      reason = "FieldValueInvalid")
  public String getStorage() {
    return storage;
  }

  /** The resources; their rule here: ephemeral storage requested within its limit. */
  @ValidationRule(
      value = DatabaseResources.EPHEMERAL_REQUEST_WITHIN_LIMIT,
      fieldPath = ".requests.ephemeralStorage",
      messageExpression = DatabaseResources.EPHEMERAL_MESSAGE,
      reason = "FieldValueInvalid")
  public DatabaseResources getResources() {
    return resources;
  }

  public DatabaseSpec(Engine engine, String version, String storage) {
    this.engine = engine;
    this.version = version;
    this.storage = storage;
  }
}
