package dev.cellar.operator.storage;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import dev.cellar.operator.topology.Children;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Optional;

/**
 * What a Database's volumes have and what its spec asks, read once per reconcile before the
 * workflow runs: the claims from the informer cache, and the storage class from the API server only
 * when a volume must grow (rare, so no informer on classes). The dependents and {@link
 * StorageResize} decide from this plan and make no API calls of their own to decide.
 *
 * @param dataClass the data claims' class, read only when the data volumes must grow
 * @param backupClass the backup claim's class, read only when it must grow
 */
public record StoragePlan(
    Topology topology,
    Optional<StatefulSet> statefulSet,
    List<PersistentVolumeClaim> dataClaims,
    Optional<PersistentVolumeClaim> backupClaim,
    Quantity wantedData,
    Quantity wantedBackup,
    Optional<StorageClass> dataClass,
    Optional<StorageClass> backupClass) {

  /** Where the plan is kept for the dependents during one reconcile. */
  public static final String CONTEXT_KEY = StoragePlan.class.getName();

  /** Reads the plan and keeps it in {@code context} for the dependents. */
  public static StoragePlan observe(Database db, Context<Database> context) {
    Topology topology = Topology.of(db);
    List<PersistentVolumeClaim> data =
        topology.possibleDataClaims().stream()
            .map(name -> cachedClaim(context, topology.namespace(), name))
            .flatMap(Optional::stream)
            .toList();
    Optional<PersistentVolumeClaim> backup =
        cachedClaim(context, topology.namespace(), topology.backupClaim());
    Optional<StatefulSet> sts = Children.statefulSet(db, context);
    Quantity wantedData = Quantities.size(db.getSpec().getStorage());
    Quantity wantedBackup = Quantities.size(db.getSpec().getBackup().getStorage());
    KubernetesClient client = context.getClient();
    String requested = db.getSpec().getStorageClassName();
    Optional<StorageClass> dataClass =
        sts.isPresent() && smaller(templateSize(sts), wantedData)
            ? classOf(client, data.stream().findFirst(), requested)
            : Optional.empty();
    Optional<StorageClass> backupClass =
        backup.isPresent() && smaller(requested(backup.get()), wantedBackup)
            ? classOf(client, backup, requested)
            : Optional.empty();
    StoragePlan plan =
        new StoragePlan(
            topology, sts, data, backup, wantedData, wantedBackup, dataClass, backupClass);
    context.managedWorkflowAndDependentResourceContext().put(CONTEXT_KEY, plan);
    return plan;
  }

  /** The plan {@link #observe} kept for this reconcile. */
  public static StoragePlan of(Context<Database> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .getMandatory(CONTEXT_KEY, StoragePlan.class);
  }

  /**
   * The size of the StatefulSet's data volume template. Templates are immutable, so an existing
   * StatefulSet's size is kept; growing the claims is {@link StorageResize}'s job.
   */
  public static Quantity dataTemplateSize(Database db, Optional<StatefulSet> existing) {
    return templateSize(existing).orElseGet(() -> Quantities.size(db.getSpec().getStorage()));
  }

  /**
   * The size to ask for the backup claim: the spec's, unless its class refuses to grow it; then the
   * claim keeps its size (the API server would refuse the larger request) and the status says what
   * to do.
   */
  public Quantity backupClaimSize() {
    Optional<Quantity> current = backupClaim.flatMap(StoragePlan::requested);
    if (backupClaim.isPresent()
        && smaller(current, wantedBackup)
        && !allowsExpansion(backupClass)) {
      return current.get();
    }
    return wantedBackup;
  }

  // What volumes have and ask for.

  static Optional<Quantity> templateSize(Optional<StatefulSet> sts) {
    return sts.flatMap(s -> s.getSpec().getVolumeClaimTemplates().stream().findFirst())
        .flatMap(StoragePlan::requested);
  }

  /** What the claim asks for. */
  static Optional<Quantity> requested(PersistentVolumeClaim claim) {
    return Optional.ofNullable(claim.getSpec().getResources())
        .map(r -> r.getRequests())
        .map(r -> r.get("storage"));
  }

  /** What the claim has: its status capacity. */
  static Optional<Quantity> capacity(PersistentVolumeClaim claim) {
    return Optional.ofNullable(claim.getStatus())
        .map(s -> s.getCapacity())
        .map(c -> c.get("storage"));
  }

  static boolean smaller(Optional<Quantity> size, Quantity than) {
    return size.map(s -> s.getNumericalAmount().compareTo(than.getNumericalAmount()) < 0)
        .orElse(true);
  }

  static boolean allowsExpansion(Optional<StorageClass> storageClass) {
    return storageClass.map(c -> Boolean.TRUE.equals(c.getAllowVolumeExpansion())).orElse(false);
  }

  /**
   * The class of a claim: set on the claim (the API server fills in the default class at creation),
   * else the one asked for, else the cluster's default.
   */
  private static Optional<StorageClass> classOf(
      KubernetesClient client, Optional<PersistentVolumeClaim> claim, String requested) {
    String name =
        claim
            .map(c -> c.getSpec().getStorageClassName())
            .filter(n -> !n.isEmpty())
            .orElse(requested);
    if (name != null) {
      return Optional.ofNullable(client.storage().v1().storageClasses().withName(name).get());
    }
    return client.storage().v1().storageClasses().list().getItems().stream()
        .filter(
            c ->
                c.getMetadata().getAnnotations() != null
                    && "true"
                        .equals(
                            c.getMetadata().getAnnotations().get(Keys.DEFAULT_CLASS_ANNOTATION)))
        .findFirst();
  }

  /**
   * A claim from the informer cache, looked up by name: filtering the cache by label cost every
   * reconcile a pass over all the cluster's claims.
   */
  @SuppressWarnings("unchecked")
  public static Optional<PersistentVolumeClaim> cachedClaim(
      Context<Database> context, String namespace, String name) {
    var source =
        (InformerEventSource<PersistentVolumeClaim, Database>)
            context.eventSourceRetriever().getEventSourceFor(PersistentVolumeClaim.class);
    return source.get(new ResourceID(name, namespace));
  }
}
