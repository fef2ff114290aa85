package dev.cellar.operator.dependent;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import dev.cellar.api.names.Keys.Credentials;
import dev.cellar.api.v1.ComputeResources;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseResources;
import dev.cellar.operator.deletion.DataRetention;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineVersion;
import dev.cellar.operator.engine.VersionDecision;
import dev.cellar.operator.podspec.ClientTlsVolume;
import dev.cellar.operator.podspec.ContainerResources;
import dev.cellar.operator.podspec.PodScheduling;
import dev.cellar.operator.podspec.PodSecurity;
import dev.cellar.operator.storage.Claims;
import dev.cellar.operator.storage.StoragePlan;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The database pods and their data volumes. The version it runs is recorded in the annotation
 * {@link Keys#VERSION_ANNOTATION}, so version rules hold after an operator restart or a lost
 * status.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Keys.MANAGED_SELECTOR))
public class StatefulSetDependent extends OwnedChild<StatefulSet> {
  static final String CONFIG_VOLUME = "config";

  /**
   * The pod's own labels and annotations (downward API), which the kubelet keeps up to date: the
   * entrypoint reads its role ({@link Keys#ROLE}) there, so a pod's role is what the operator last
   * said, even while the operator is down.
   */
  static final String POD_INFO_VOLUME = "pod-info";

  /**
   * Where {@link #POD_INFO_VOLUME} is mounted; lib.sh reads {@code labels} and {@code annotations}.
   */
  public static final String POD_INFO_DIR = "/etc/cellar-pod";

  /** The server certificate Secret's volume, mounted at {@link EngineProfile#TLS_DIR}. */
  static final String TLS_VOLUME = "tls";

  public StatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected String childName(Topology topology) {
    return topology.statefulSet();
  }

  /**
   * An update reconciles only when it changes what Cellar reads of a StatefulSet: its metadata, its
   * spec, and of its status the generation the controller has seen and its update revision ({@link
   * dev.cellar.operator.facts.PodFacts#rolledOut}). The controller also writes its counts of ready,
   * updated, available and current replicas there, once more after each pod changes; Cellar counts
   * those from the pods, whose own update reconciles already.
   */
  @Override
  protected void configureInformer(
      InformerEventSourceConfiguration.Builder<StatefulSet> config,
      EventSourceContext<Database> context) {
    config.withOnUpdateFilter(StatefulSetDependent::changesWhatCellarReads);
  }

  /** Whether {@code now} differs from {@code before} in anything Cellar reads. */
  static boolean changesWhatCellarReads(StatefulSet now, StatefulSet before) {
    return !Objects.equals(now.getSpec(), before.getSpec())
        || !Objects.equals(now.getMetadata().getGeneration(), before.getMetadata().getGeneration())
        || !Objects.equals(
            metadataRead(now.getMetadata(), key -> true),
            metadataRead(before.getMetadata(), key -> true))
        || !Objects.equals(roll(now.getStatus()), roll(before.getStatus()));
  }

  private static List<Object> roll(StatefulSetStatus status) {
    return status == null
        ? List.of()
        : Arrays.asList(status.getObservedGeneration(), status.getUpdateRevision());
  }

  @Override
  protected StatefulSet desired(Database db, Context<Database> context) {
    Optional<StatefulSet> existing = getSecondaryResource(db, context);
    return desired(db, existing, Topology.of(db).versionDecision(existing));
  }

  /** The Database, the version decision and what {@link #desired} reads of the existing one. */
  @Override
  protected Optional<List<Object>> inputs(Database db, Context<Database> context) {
    Optional<StatefulSet> existing = getSecondaryResource(db, context);
    VersionDecision decision = Topology.of(db).versionDecision(existing);
    List<Object> inputs = new ArrayList<>(databaseInputs(db));
    inputs.add(decision);
    inputs.add(Topology.of(db).image(decision, existing));
    inputs.add(Topology.upgradedFromImage(decision, existing));
    inputs.add(String.valueOf(StoragePlan.dataTemplateSize(db, existing)));
    return Optional.of(inputs);
  }

  /** The StatefulSet for {@code db}, given the one that exists and the version decision. */
  StatefulSet desired(Database db, Optional<StatefulSet> existing, VersionDecision decision) {
    Topology topology = Topology.of(db);
    EngineProfile profile = topology.profile();
    EngineVersion version =
        decision
            .target()
            .orElseThrow(
                () ->
                    new IllegalStateException("no runnable version for " + topology.statefulSet()));
    String image = topology.image(decision, existing);
    Optional<String> oldImage = Topology.upgradedFromImage(decision, existing);
    Optional<EngineVersion> upgradedFrom =
        decision.upgradedFrom().filter(f -> oldImage.isPresent());
    Map<String, String> labels = Keys.labels(db, Keys.Component.DATABASE);
    Container database = container(db, profile, version, image, upgradedFrom);
    PodSpecBuilder pod =
        new PodSpecBuilder()
            .withSecurityContext(PodSecurity.pod())
            .withEnableServiceLinks(false)
            .withContainers(containers(db, profile, database))
            // The Database's configuration and the engine's shared scripts, in one directory.
            .addNewVolume()
            .withName(CONFIG_VOLUME)
            .withNewProjected()
            .addNewSource()
            .withNewConfigMap()
            .withName(topology.configMap())
            // Its own files only: it holds the scripts too while older pods still read them
            // there (ConfigMapDependent).
            .withItems(configItems(profile.configFiles(db)))
            .endConfigMap()
            .endSource()
            .addNewSource()
            .withNewConfigMap()
            .withName(topology.scriptsConfigMap())
            .endConfigMap()
            .endSource()
            .endProjected()
            .endVolume()
            .addNewVolume()
            .withName(POD_INFO_VOLUME)
            .withNewDownwardAPI()
            .addNewItem()
            .withPath("labels")
            .withNewFieldRef("v1", "metadata.labels")
            .endItem()
            .addNewItem()
            .withPath("annotations")
            .withNewFieldRef("v1", "metadata.annotations")
            .endItem()
            .endDownwardAPI()
            .endVolume();
    if (topology.tlsOn()) {
      // Group-readable for the database user (fsGroup 999), as PostgreSQL accepts a root-owned
      // key: u=rw,g=r. The kubelet swaps the files in place when the Secret is renewed.
      pod.addNewVolume()
          .withName(TLS_VOLUME)
          .withNewSecret()
          .withSecretName(topology.serverCertificateSecret())
          .withDefaultMode(PodSecurity.TLS_FILE_MODE)
          .endSecret()
          .endVolume();
    }
    if (topology.requiresClientCertificates()) {
      pod.addNewVolume()
          .withName(ClientTlsVolume.NAME)
          .withNewSecret()
          .withSecretName(topology.clientTlsSecret())
          .withDefaultMode(PodSecurity.TLS_FILE_MODE)
          .endSecret()
          .endVolume();
    }
    PodScheduling.apply(db, pod);
    Map<String, String> upgradeAnnotations = new TreeMap<>();
    if (upgradedFrom.isPresent()) {
      // The old major's image dumps its data before the new server restores it (the engine's
      // script does nothing once the new data directory is restored, or on a replica).
      pod.addToInitContainers(
          new ContainerBuilder(database)
              .withName(ChildNames.MAJOR_UPGRADE_CONTAINER)
              .withImage(oldImage.get())
              .withCommand(profile.majorUpgradeDumpCommand())
              .withArgs()
              .withPorts()
              .withReadinessProbe(null)
              .withLivenessProbe(null)
              .withStartupProbe(null)
              .build());
      upgradeAnnotations.put(Keys.UPGRADED_FROM_ANNOTATION, upgradedFrom.get().toString());
      upgradeAnnotations.put(Keys.UPGRADED_FROM_IMAGE_ANNOTATION, oldImage.get());
    } else {
      // A Database restored from a backup is restored once, into its first data directory.
      BootstrapRestore.apply(db, profile, version, image, pod);
    }
    return new StatefulSetBuilder()
        .withMetadata(metadata(db, Keys.Component.DATABASE))
        .editMetadata()
        .addToAnnotations(Keys.VERSION_ANNOTATION, version.toString())
        .addToAnnotations(upgradeAnnotations)
        .endMetadata()
        .withNewSpec()
        .withServiceName(topology.headlessService())
        .withReplicas(podCount(db))
        .withPodManagementPolicy("OrderedReady")
        // Cellar replaces the pods itself, replicas first and the primary after a switchover
        // (rollout.RollingUpdate): the controller's RollingUpdate goes by ordinal and would restart
        // the primary wherever it is, which a failover would then answer.
        .withNewUpdateStrategy()
        .withType("OnDelete")
        .endUpdateStrategy()
        .withNewSelector()
        .withMatchLabels(Keys.selector(db, Keys.Component.DATABASE))
        .endSelector()
        .withNewPersistentVolumeClaimRetentionPolicy()
        .withWhenDeleted(DataRetention.claimsWhenDeleted(db))
        .withWhenScaled(DataRetention.CLAIMS_WHEN_SCALED)
        .endPersistentVolumeClaimRetentionPolicy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .addToAnnotations(Keys.CONFIG_HASH_ANNOTATION, configHash(profile.configFiles(db)))
        .endMetadata()
        .withSpec(pod.build())
        .endTemplate()
        .withVolumeClaimTemplates(dataClaimTemplate(db, existing))
        .endSpec()
        .build();
  }

  /**
   * How many pods run: none while hibernated. The claims stay (whenScaled is Retain), so waking
   * brings each pod back on its own volume.
   */
  static int podCount(Database db) {
    return Boolean.TRUE.equals(db.getSpec().getHibernated()) ? 0 : db.getSpec().getReplicas();
  }

  /** The database container, then the exporter while spec.monitoring is on. */
  private static List<Container> containers(
      Database db, EngineProfile profile, Container database) {
    List<Container> containers = new ArrayList<>();
    containers.add(database);
    if (Topology.of(db).monitoringOn()) {
      containers.add(exporter(db, profile));
    }
    return containers;
  }

  /**
   * The exporter sidecar: the engine's Prometheus exporter on the port {@code metrics}, connecting
   * to this pod's server on 127.0.0.1 as the monitoring account (its password from the monitoring
   * Secret, in the environment only). Small fixed resources: it holds one connection and a few
   * metrics.
   */
  static Container exporter(Database db, EngineProfile profile) {
    Topology topology = Topology.of(db);
    return new ContainerBuilder()
        .withName(Keys.Monitoring.CONTAINER)
        .withImage(profile.exporterImage(db))
        .withArgs(profile.exporterArgs(db))
        .addNewPort()
        .withName(Keys.Monitoring.PORT_NAME)
        .withContainerPort(profile.exporterPort())
        .withProtocol("TCP")
        .endPort()
        .withEnv(profile.exporterEnv(db, topology.monitoringSecret()))
        .withResources(
            new ResourceRequirementsBuilder()
                .withRequests(
                    Map.of(
                        ContainerResources.CPU, new Quantity("10m"),
                        ContainerResources.MEMORY, new Quantity("32Mi"),
                        ContainerResources.EPHEMERAL_STORAGE, new Quantity("16Mi")))
                .withLimits(
                    Map.of(
                        ContainerResources.CPU, new Quantity("200m"),
                        ContainerResources.MEMORY, new Quantity("128Mi"),
                        ContainerResources.EPHEMERAL_STORAGE, new Quantity("64Mi")))
                .build())
        .withSecurityContext(PodSecurity.container())
        .build();
  }

  private static Container container(
      Database db,
      EngineProfile profile,
      EngineVersion version,
      String image,
      Optional<EngineVersion> upgradedFrom) {
    List<VolumeMount> mounts =
        new ArrayList<>(
            List.of(
                new VolumeMountBuilder()
                    .withName(ChildNames.DATA_VOLUME)
                    .withMountPath(profile.dataMountPath(version))
                    .build()));
    mounts.add(
        new VolumeMountBuilder()
            .withName(CONFIG_VOLUME)
            .withMountPath(EngineProfile.CELLAR_DIR)
            .withReadOnly(true)
            .build());
    mounts.add(
        new VolumeMountBuilder()
            .withName(POD_INFO_VOLUME)
            .withMountPath(POD_INFO_DIR)
            .withReadOnly(true)
            .build());
    if (Topology.of(db).tlsOn()) {
      mounts.add(
          new VolumeMountBuilder()
              .withName(TLS_VOLUME)
              .withMountPath(EngineProfile.TLS_DIR)
              .withReadOnly(true)
              .build());
    }
    if (Topology.of(db).requiresClientCertificates()) {
      mounts.add(
          new VolumeMountBuilder()
              .withName(ClientTlsVolume.NAME)
              .withMountPath(EngineProfile.CLIENT_TLS_DIR)
              .withReadOnly(true)
              .build());
    }
    new TreeMap<>(profile.engineIncludes())
        .forEach(
            (file, path) ->
                mounts.add(
                    new VolumeMountBuilder()
                        .withName(CONFIG_VOLUME)
                        .withMountPath(path)
                        .withSubPath(file)
                        .withReadOnly(true)
                        .build()));
    String secret = Topology.of(db).credentialsSecret();
    List<EnvVar> env =
        new ArrayList<>(
            upgradedFrom
                .map(from -> profile.majorUpgradeEnv(secret, version, from))
                .orElseGet(() -> profile.env(secret, version)));
    env.addAll(replicationEnv(db, profile));
    // primary-setup.sh creates the exporter's account, whether or not the exporter runs.
    env.addAll(EngineProfile.monitoringAccountEnv(Topology.of(db).monitoringSecret()));
    return new ContainerBuilder()
        .withName(ChildNames.DATABASE_CONTAINER)
        .withImage(image)
        .withCommand(profile.command())
        .withArgs(profile.args(db))
        .addNewPort()
        .withName(ServiceChild.PORT_NAME)
        .withContainerPort(profile.port())
        .withProtocol("TCP")
        .endPort()
        .withEnv(env)
        .withReadinessProbe(profile.readinessProbe())
        .withLivenessProbe(profile.livenessProbe())
        .withStartupProbe(profile.startupProbe())
        .withResources(resources(db))
        .withSecurityContext(PodSecurity.container())
        .withVolumeMounts(mounts)
        .build();
  }

  /**
   * What the engine's entrypoint and replication scripts need to know about their pod: its name
   * (the ordinal gives MySQL's server_id; the role comes from the pod's label), where the primary
   * is (the read-write Service, which follows the primary's label), and the replication account.
   */
  static List<EnvVar> replicationEnv(Database db, EngineProfile profile) {
    Topology topology = Topology.of(db);
    String secret = topology.credentialsSecret();
    List<EnvVar> env =
        new ArrayList<>(
            List.of(
                new EnvVarBuilder()
                    .withName("POD_NAME")
                    .withNewValueFrom()
                    .withNewFieldRef()
                    .withApiVersion("v1")
                    .withFieldPath("metadata.name")
                    .endFieldRef()
                    .endValueFrom()
                    .build(),
                EngineProfile.value("CELLAR_PRIMARY_HOST", topology.primaryHost()),
                EngineProfile.value("CELLAR_PORT", String.valueOf(profile.port())),
                // disabled, enabled or required: the scripts connect to the primary over TLS,
                // verifying
                // it with the CA in CELLAR_TLS_DIR, unless disabled.
                EngineProfile.value("CELLAR_TLS_MODE", EngineProfile.tlsMode(db)),
                EngineProfile.value("CELLAR_TLS_DIR", EngineProfile.TLS_DIR),
                EngineProfile.fromSecret(
                    "CELLAR_REPLICATION_USER", secret, Credentials.REPLICATION_USER, true),
                EngineProfile.fromSecret(
                    "CELLAR_REPLICATION_PASSWORD",
                    secret,
                    Credentials.REPLICATION_PASSWORD,
                    true)));
    if (topology.requiresClientCertificates()) {
      // Only when asked for, so that Databases without it keep their pod template: the scripts
      // then require the application user's client certificate (pg_hba.conf; REQUIRE X509).
      env.add(EngineProfile.value("CELLAR_TLS_CLIENT_CERTIFICATES", "required"));
    }
    if (topology.synchronousReplication()) {
      // Likewise only when asked for: the MySQL-family scripts turn semi-sync waits on where the
      // pod is the primary, and only there (server-args.sh).
      env.add(EngineProfile.value("CELLAR_REPLICATION_MODE", "sync"));
    }
    return env;
  }

  /**
   * spec.resources, or the defaults: requests 100m / 256Mi, limits 500m / 1Gi. Ephemeral storage,
   * unless given: requests 256Mi, limits {@link ContainerResources#databaseEphemeralLimit}.
   */
  static ResourceRequirements resources(Database db) {
    DatabaseResources wanted = db.getSpec().getResources();
    if (wanted == null || (wanted.getRequests() == null && wanted.getLimits() == null)) {
      wanted =
          new DatabaseResources(
              new ComputeResources("100m", "256Mi"), new ComputeResources("500m", "1Gi"));
    }
    Map<String, Quantity> requests = quantities(wanted.getRequests());
    Map<String, Quantity> limits = quantities(wanted.getLimits());
    ResourceRequirements ephemeral =
        ContainerResources.merge(
            Map.of(
                ContainerResources.EPHEMERAL_STORAGE,
                ContainerResources.DATABASE_EPHEMERAL_REQUEST),
            ContainerResources.databaseEphemeralLimit(db)
                .map(limit -> Map.of(ContainerResources.EPHEMERAL_STORAGE, limit))
                .orElse(Map.of()),
            wanted);
    requests.putAll(ephemeral.getRequests());
    limits.putAll(ephemeral.getLimits());
    return new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build();
  }

  private static Map<String, Quantity> quantities(ComputeResources resources) {
    Map<String, Quantity> quantities = new TreeMap<>();
    if (resources != null && resources.getCpu() != null) {
      quantities.put("cpu", ContainerResources.quantity(resources.getCpu()));
    }
    if (resources != null && resources.getMemory() != null) {
      quantities.put("memory", ContainerResources.quantity(resources.getMemory()));
    }
    if (resources != null && resources.getEphemeralStorage() != null) {
      quantities.put(
          ContainerResources.EPHEMERAL_STORAGE,
          ContainerResources.quantity(resources.getEphemeralStorage()));
    }
    return quantities;
  }

  /** The data volume template, sized by {@link StoragePlan#dataTemplateSize}. */
  private static PersistentVolumeClaim dataClaimTemplate(
      Database db, Optional<StatefulSet> existing) {
    return new PersistentVolumeClaimBuilder()
        .withApiVersion("v1")
        .withKind("PersistentVolumeClaim")
        .withNewMetadata()
        .withName(ChildNames.DATA_VOLUME)
        .withLabels(Keys.labels(db, Keys.Component.DATABASE))
        .endMetadata()
        .withSpec(Claims.spec(db, StoragePlan.dataTemplateSize(db, existing)))
        .build();
  }

  private static List<KeyToPath> configItems(Map<String, String> files) {
    return new TreeMap<>(files)
        .keySet().stream().map(file -> new KeyToPath(file, null, file)).toList();
  }

  /**
   * The pod template's hash of the Database's configuration files: they reach the server through
   * subPath mounts, which a changed ConfigMap does not update, so a change rolls the pods.
   */
  static String configHash(Map<String, String> files) {
    return EngineProfile.filesHash(files);
  }
}
