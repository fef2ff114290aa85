package dev.cellar.operator.dependent;

import dev.cellar.api.v1.ComputeResources;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseResources;
import dev.cellar.operator.Labels;
import dev.cellar.operator.engine.EngineProfile;
import dev.cellar.operator.engine.EngineProfiles;
import dev.cellar.operator.engine.EngineVersion;
import dev.cellar.operator.engine.VersionDecision;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The database pods and their data volumes. The version it runs is recorded in the annotation
 * {@link #VERSION_ANNOTATION}, so version rules hold after an operator restart or a lost status.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_SELECTOR))
public class StatefulSetDependent extends OwnedChild<StatefulSet> {
  public static final String VERSION_ANNOTATION = "cellar.dev/version";
  public static final String CONFIG_HASH_ANNOTATION = "cellar.dev/config-hash";
  public static final String CONTAINER = "database";
  public static final String DATA_VOLUME = "data";
  static final String CONFIG_VOLUME = "config";

  public StatefulSetDependent() {
    super(StatefulSet.class);
  }

  public static String name(Database db) {
    return db.getMetadata().getName();
  }

  public static String podName(Database db, int ordinal) {
    return name(db) + "-" + ordinal;
  }

  /** The data PVC of one pod, as the StatefulSet controller names it. */
  public static String dataClaimName(Database db, int ordinal) {
    return DATA_VOLUME + "-" + podName(db, ordinal);
  }

  @Override
  protected String childName(Database db) {
    return name(db);
  }

  /** The version recorded on a StatefulSet, if any. */
  public static Optional<String> runningVersion(StatefulSet sts) {
    return Optional.ofNullable(sts.getMetadata().getAnnotations())
        .map(a -> a.get(VERSION_ANNOTATION));
  }

  /** What version to run for {@code db}, given the StatefulSet in the informer cache. */
  public static VersionDecision versionDecision(Database db, Context<Database> context) {
    return VersionDecision.decide(
        EngineProfiles.of(db),
        db.getSpec().getVersion(),
        context
            .getSecondaryResource(StatefulSet.class)
            .flatMap(StatefulSetDependent::runningVersion));
  }

  @Override
  protected StatefulSet desired(Database db, Context<Database> context) {
    return desired(db, getSecondaryResource(db, context), versionDecision(db, context));
  }

  /** The StatefulSet for {@code db}, given the one that exists and the version decision. */
  StatefulSet desired(Database db, Optional<StatefulSet> existing, VersionDecision decision) {
    EngineProfile profile = EngineProfiles.of(db);
    EngineVersion version =
        decision
            .target()
            .orElseThrow(() -> new IllegalStateException("no runnable version for " + name(db)));
    // A refused version change keeps the image that runs, whatever spec.image says.
    String image =
        decision.refusal().isPresent() && existing.isPresent()
            ? existing.get().getSpec().getTemplate().getSpec().getContainers().get(0).getImage()
            : profile.image(db, version);
    Map<String, String> labels = Labels.of(db, Labels.Component.DATABASE);
    return new StatefulSetBuilder()
        .withMetadata(metadata(db, Labels.Component.DATABASE))
        .editMetadata()
        .addToAnnotations(VERSION_ANNOTATION, version.toString())
        .endMetadata()
        .withNewSpec()
        .withServiceName(HeadlessServiceDependent.name(db))
        .withReplicas(db.getSpec().getReplicas())
        .withPodManagementPolicy("OrderedReady")
        .withNewSelector()
        .withMatchLabels(Labels.selector(db, Labels.Component.DATABASE))
        .endSelector()
        .withNewPersistentVolumeClaimRetentionPolicy()
        .withWhenDeleted(db.getSpec().getDeletionPolicy().name())
        .withWhenScaled("Retain")
        .endPersistentVolumeClaimRetentionPolicy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .addToAnnotations(CONFIG_HASH_ANNOTATION, configHash(profile.configFiles(db)))
        .endMetadata()
        .withNewSpec()
        .withSecurityContext(PodSecurity.pod())
        .withEnableServiceLinks(false)
        .withContainers(container(db, profile, version, image))
        .addNewVolume()
        .withName(CONFIG_VOLUME)
        .withNewConfigMap()
        .withName(ConfigMapDependent.name(db))
        .endConfigMap()
        .endVolume()
        .endSpec()
        .endTemplate()
        .withVolumeClaimTemplates(dataClaimTemplate(db, existing))
        .endSpec()
        .build();
  }

  private static Container container(
      Database db, EngineProfile profile, EngineVersion version, String image) {
    List<VolumeMount> mounts =
        new ArrayList<>(
            List.of(
                new VolumeMountBuilder()
                    .withName(DATA_VOLUME)
                    .withMountPath(profile.dataMountPath(version))
                    .build()));
    mounts.add(
        new VolumeMountBuilder()
            .withName(CONFIG_VOLUME)
            .withMountPath(EngineProfile.CELLAR_DIR)
            .withReadOnly(true)
            .build());
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
    List<EnvVar> env = new ArrayList<>(profile.env(CredentialsSecretDependent.name(db), version));
    env.addAll(replicationEnv(db, profile));
    return new ContainerBuilder()
        .withName(CONTAINER)
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
   * (the ordinal says primary or replica), where the primary is, and the replication account.
   */
  static List<EnvVar> replicationEnv(Database db, EngineProfile profile) {
    String secret = CredentialsSecretDependent.name(db);
    return List.of(
        new EnvVarBuilder()
            .withName("POD_NAME")
            .withNewValueFrom()
            .withNewFieldRef()
            .withApiVersion("v1")
            .withFieldPath("metadata.name")
            .endFieldRef()
            .endValueFrom()
            .build(),
        new EnvVarBuilder().withName("CELLAR_PRIMARY_HOST").withValue(primaryPodHost(db)).build(),
        new EnvVarBuilder()
            .withName("CELLAR_PORT")
            .withValue(String.valueOf(profile.port()))
            .build(),
        EngineProfile.fromSecret(
            "CELLAR_REPLICATION_USER", secret, EngineProfile.REPLICATION_USER, true),
        EngineProfile.fromSecret(
            "CELLAR_REPLICATION_PASSWORD", secret, EngineProfile.REPLICATION_PASSWORD, true));
  }

  /** The primary pod's stable DNS name through the headless Service. */
  public static String primaryPodHost(Database db) {
    return podName(db, 0) + "." + ServiceChild.dnsName(HeadlessServiceDependent.name(db), db);
  }

  /** spec.resources, or the defaults: requests 100m / 256Mi, limits 500m / 1Gi. */
  static ResourceRequirements resources(Database db) {
    DatabaseResources wanted = db.getSpec().getResources();
    if (wanted == null || (wanted.getRequests() == null && wanted.getLimits() == null)) {
      wanted =
          new DatabaseResources(
              new ComputeResources("100m", "256Mi"), new ComputeResources("500m", "1Gi"));
    }
    return new ResourceRequirementsBuilder()
        .withRequests(quantities(wanted.getRequests()))
        .withLimits(quantities(wanted.getLimits()))
        .build();
  }

  private static Quantity quantity(IntOrString value) {
    return new Quantity(
        value.getIntVal() != null ? value.getIntVal().toString() : value.getStrVal());
  }

  private static Map<String, Quantity> quantities(ComputeResources resources) {
    Map<String, Quantity> quantities = new TreeMap<>();
    if (resources != null && resources.getCpu() != null) {
      quantities.put("cpu", quantity(resources.getCpu()));
    }
    if (resources != null && resources.getMemory() != null) {
      quantities.put("memory", quantity(resources.getMemory()));
    }
    return quantities;
  }

  /**
   * The data volume template. volumeClaimTemplates are immutable, so an existing StatefulSet's size
   * is kept here; growing the PVCs is the storage resize's job.
   */
  private static PersistentVolumeClaim dataClaimTemplate(
      Database db, Optional<StatefulSet> existing) {
    Quantity size =
        existing
            .flatMap(sts -> sts.getSpec().getVolumeClaimTemplates().stream().findFirst())
            .map(pvc -> pvc.getSpec().getResources().getRequests().get("storage"))
            .orElseGet(() -> Quantities.size(db.getSpec().getStorage()));
    return new PersistentVolumeClaimBuilder()
        .withApiVersion("v1")
        .withKind("PersistentVolumeClaim")
        .withNewMetadata()
        .withName(DATA_VOLUME)
        .withLabels(Labels.of(db, Labels.Component.DATABASE))
        .endMetadata()
        .withSpec(Claims.spec(db, size))
        .build();
  }

  static String configHash(Map<String, String> files) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      new TreeMap<>(files)
          .forEach(
              (name, content) -> {
                digest.update(name.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
                digest.update(content.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
              });
      return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
