package dev.cellar.operator.topology;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.IssuerRef;
import dev.cellar.api.v1.ReplicationSpec;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.engine.EngineVersion;
import dev.cellar.operator.engine.VersionDecision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * A Database's topology: the name of every child, pod and volume claim, the DNS names clients and
 * pods use, which pod is the primary, and which version and image run. Every class asks here; none
 * builds a name of its own. The names made from the Database's name alone are {@link ChildNames},
 * in the api module, which the plugin finds the children by.
 */
public record Topology(Database db) {

  public static Topology of(Database db) {
    return new Topology(db);
  }

  /** The names of the children, made from the Database's name alone (shared with the plugin). */
  public ChildNames names() {
    return ChildNames.of(name());
  }

  private String name() {
    return db.getMetadata().getName();
  }

  public String namespace() {
    return db.getMetadata().getNamespace();
  }

  // The children, by the names ChildNames gives them (its comments say what each is for).

  public String statefulSet() {
    return names().statefulSet();
  }

  public String primaryService() {
    return names().primaryService();
  }

  public String readOnlyService() {
    return names().readOnlyService();
  }

  public String headlessService() {
    return names().headlessService();
  }

  public String configMap() {
    return names().configMap();
  }

  /**
   * The engine's scripts ConfigMap in the Database's namespace, shared by every Database of the
   * engine there and named by the scripts' hash ({@link EngineProfile#scripts()}).
   */
  public String scriptsConfigMap() {
    return "cellar-" + db.getSpec().getEngine().value() + "-scripts-" + profile().scriptsHash();
  }

  public String credentialsSecret() {
    return names().credentialsSecret();
  }

  public String monitoringSecret() {
    return names().monitoringSecret();
  }

  public String podMonitor() {
    return names().podMonitor();
  }

  /** Whether the pods run the metrics exporter (spec.monitoring.enabled is not false). */
  public boolean monitoringOn() {
    return Optional.ofNullable(db.getSpec().getMonitoring()).map(m -> m.on()).orElse(true);
  }

  public String caSecret() {
    return names().caSecret();
  }

  public String tlsSecret() {
    return names().tlsSecret();
  }

  /**
   * The server certificate the pods mount: spec.tls.certificateSecret, the one cert-manager writes
   * when spec.tls.issuerRef names an issuer ({@link #certManagerSecret}), or {@link #tlsSecret}.
   */
  public String serverCertificateSecret() {
    return Optional.ofNullable(db.getSpec().getTls())
        .map(t -> t.getCertificateSecret())
        .filter(s -> !s.isBlank())
        .orElseGet(() -> certManagerIssuer().isPresent() ? certManagerSecret() : tlsSecret());
  }

  /** The cert-manager issuer of the server certificate (spec.tls.issuerRef), while TLS is on. */
  public Optional<IssuerRef> certManagerIssuer() {
    return Optional.ofNullable(db.getSpec().getTls())
        .filter(t -> t.on())
        .map(t -> t.getIssuerRef());
  }

  public String certManagerCertificate() {
    return names().certManagerCertificate();
  }

  public String certManagerSecret() {
    return names().certManagerSecret();
  }

  /** Whether the servers speak TLS (spec.tls.mode is not disabled). */
  public boolean tlsOn() {
    return Optional.ofNullable(db.getSpec().getTls()).map(t -> t.on()).orElse(true);
  }

  public String clientTlsSecret() {
    return names().clientTlsSecret();
  }

  /**
   * Whether a commit waits for a replica (spec.replication.mode sync, with a replica to wait for).
   */
  public boolean synchronousReplication() {
    return ReplicationSpec.synchronous(db.getSpec());
  }

  /** Whether the application user must present a client certificate (spec.tls). */
  public boolean requiresClientCertificates() {
    return Optional.ofNullable(db.getSpec().getTls())
        .map(t -> t.requiresClientCertificates())
        .orElse(false);
  }

  /** Whether Cellar issues the server certificate (TLS on, no certificate of the user's). */
  public boolean issuesCertificate() {
    return tlsOn() && serverCertificateSecret().equals(tlsSecret());
  }

  /**
   * The DNS names of the server certificate: the read-write and read-only Services and every pod
   * the Database can have under its headless Service, each as a short name, with its namespace, and
   * in the .svc and .svc.cluster.local forms, so clients verify the server whichever form they use
   * and however far the Database scales (no new certificate on a scale-up).
   */
  public List<String> tlsDnsNames() {
    List<String> hosts = new java.util.ArrayList<>();
    hosts.add(primaryService());
    hosts.add(readOnlyService());
    hosts.add(headlessService());
    IntStream.range(0, DatabaseSpec.MAX_REPLICAS)
        .forEach(i -> hosts.add(pod(i) + "." + headlessService()));
    List<String> names = new java.util.ArrayList<>();
    for (String host : hosts) {
      names.add(host);
      names.add(host + "." + namespace());
      names.add(host + "." + namespace() + ".svc");
      names.add(host + "." + namespace() + ".svc.cluster.local");
    }
    // Connections from inside a pod to its own server (an IP address in the certificate).
    names.add("localhost");
    names.add("127.0.0.1");
    return names;
  }

  public String podDisruptionBudget() {
    return names().podDisruptionBudget();
  }

  public String networkPolicy() {
    return names().networkPolicy();
  }

  public String backupClaim() {
    return names().backupClaim();
  }

  public String backupCronJob() {
    return names().backupCronJob();
  }

  public String onDemandBackupJob(String token) {
    return names().onDemandBackupJob(token);
  }

  public String onDemandVerifyJob(String token) {
    return names().onDemandVerifyJob(token);
  }

  // Pods and their volumes.

  public String pod(int ordinal) {
    return names().pod(ordinal);
  }

  public String dataClaim(int ordinal) {
    return names().dataClaim(ordinal);
  }

  /** An ordinal as a pod's name ends with it: compiled once, every status reads every pod's. */
  private static final Pattern ORDINAL = Pattern.compile("[0-9]{1,2}");

  /** Every data claim the Database can have, for any replica count the CRD admits. */
  public List<String> possibleDataClaims() {
    return IntStream.range(0, DatabaseSpec.MAX_REPLICAS).mapToObj(this::dataClaim).toList();
  }

  /**
   * The pod that is the primary: {@code status.currentPrimary}, which the operator writes when it
   * first labels a primary (pod 0) and when it fails over or switches over; pod 0 until then. The
   * Services select it by its role label, and every pod's entrypoint learns its role from that
   * label, never from its ordinal.
   */
  public String primaryPod() {
    return Optional.ofNullable(db.getStatus())
        .map(s -> s.getCurrentPrimary())
        .filter(this::isPod)
        .orElseGet(() -> pod(0));
  }

  /** Whether {@code name} is one of this Database's pods, of any ordinal the CRD admits. */
  public boolean isPod(String name) {
    return name != null && ordinal(name).isPresent();
  }

  /** The ordinal of a pod of this Database, by its name. */
  public Optional<Integer> ordinal(String pod) {
    String prefix = statefulSet() + "-";
    if (pod == null || !pod.startsWith(prefix)) {
      return Optional.empty();
    }
    String rest = pod.substring(prefix.length());
    if (!ORDINAL.matcher(rest).matches()) {
      return Optional.empty();
    }
    int ordinal = Integer.parseInt(rest);
    return ordinal < DatabaseSpec.MAX_REPLICAS && rest.equals(String.valueOf(ordinal))
        ? Optional.of(ordinal)
        : Optional.empty();
  }

  // DNS names and endpoints.

  /** The primary's DNS name: the read-write Service. */
  public String primaryHost() {
    return serviceHost(primaryService());
  }

  /** The replicas' DNS name: the read-only Service. */
  public String readOnlyHost() {
    return serviceHost(readOnlyService());
  }

  public String endpoint() {
    return primaryHost() + ":" + profile().port();
  }

  public String readOnlyEndpoint() {
    return readOnlyHost() + ":" + profile().port();
  }

  private String serviceHost(String service) {
    return service + "." + namespace() + ".svc.cluster.local";
  }

  /**
   * The SQL database the image creates: the Database's name, as an identifier; for a Database
   * restored from another's backup, the source's, so that the restored data is in the database its
   * credentials Secret names (a dump holds the source's database under the source's name).
   */
  public String databaseName() {
    String owner =
        Optional.ofNullable(db.getSpec().getBootstrap())
            .map(b -> b.getFromBackup())
            .map(f -> f.getDatabase())
            .filter(d -> !d.isBlank())
            .orElse(name());
    return owner.replace('-', '_').replace('.', '_');
  }

  // What runs.

  public EngineProfile profile() {
    return EngineProfiles.of(db);
  }

  /** The version recorded on a StatefulSet, if any. */
  public static Optional<String> runningVersion(StatefulSet sts) {
    return Optional.ofNullable(sts.getMetadata().getAnnotations())
        .map(a -> a.get(Keys.VERSION_ANNOTATION));
  }

  /** The image a StatefulSet's database container runs. */
  public static String runningImage(StatefulSet sts) {
    return sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  /** Which version to run, given the StatefulSet that exists. */
  public VersionDecision versionDecision(Optional<StatefulSet> existing) {
    return VersionDecision.decide(
        profile(),
        db.getSpec().getVersion(),
        existing.flatMap(Topology::runningVersion),
        existing.flatMap(s -> annotation(s, Keys.UPGRADED_FROM_ANNOTATION)),
        Optional.ofNullable(db.getSpec().getReplicas()).orElse(1));
  }

  private static Optional<String> annotation(StatefulSet sts, String key) {
    return Optional.ofNullable(sts.getMetadata().getAnnotations()).map(a -> a.get(key));
  }

  /**
   * The image that dumped the old major's data in a major upgrade: recorded on the StatefulSet,
   * else (the upgrade is being decided now) the one that runs.
   */
  public static Optional<String> upgradedFromImage(
      VersionDecision decision, Optional<StatefulSet> existing) {
    if (decision.upgradedFrom().isEmpty() || existing.isEmpty()) {
      return Optional.empty();
    }
    return annotation(existing.get(), Keys.UPGRADED_FROM_IMAGE_ANNOTATION)
        .or(() -> Optional.of(runningImage(existing.get())));
  }

  /** The version the spec asks for (the CRD's pattern makes it parse). */
  public EngineVersion wantedVersion() {
    return EngineVersion.parse(db.getSpec().getVersion());
  }

  /**
   * The image of the database pods and of the backup Jobs (whose client tools must match the
   * server): a refused version change keeps the image that runs, whatever spec.image says; else
   * spec.image or the official image at the version to run. With nothing to run, the spec's.
   */
  public String image(VersionDecision decision, Optional<StatefulSet> existing) {
    if (decision.refusal().isPresent() && existing.isPresent()) {
      return runningImage(existing.get());
    }
    return profile()
        .image(
            db, decision.target().orElseGet(() -> EngineVersion.parse(db.getSpec().getVersion())));
  }
}
