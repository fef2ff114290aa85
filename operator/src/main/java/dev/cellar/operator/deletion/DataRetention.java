package dev.cellar.operator.deletion;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DeletionPolicy;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * spec.deletionPolicy, whole: what a deleted Database takes along. Children without data die with
 * it through their owner reference (JOSDK's GarbageCollected). Children with data (the credentials
 * Secret, the backup claim) are owned only under Delete ({@link #ownerReferences}); the data claims
 * follow the StatefulSet's claim retention ({@link #claimsWhenDeleted}); a policy changed later is
 * applied to the Secret, which is never rewritten, by patching its owner references ({@link
 * #syncSecretOwnership}). The backup claim is no Deleter: turning backups off keeps the dumps.
 */
public final class DataRetention {
  private DataRetention() {}

  /** The owner references of a child that holds data: the Database's only under Delete. */
  public static List<OwnerReference> ownerReferences(Database db) {
    return deletes(db) ? List.of(ownerReference(db)) : List.of();
  }

  /** The StatefulSet's whenDeleted claim retention; scaling down always keeps the claims. */
  public static String claimsWhenDeleted(Database db) {
    return db.getSpec().getDeletionPolicy().name();
  }

  public static final String CLAIMS_WHEN_SCALED = "Retain";

  /** The owner reference that makes a child die with its Database. */
  public static OwnerReference ownerReference(Database db) {
    return new OwnerReferenceBuilder()
        .withApiVersion(db.getApiVersion())
        .withKind(db.getKind())
        .withName(db.getMetadata().getName())
        .withUid(db.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /**
   * Keeps the credentials Secret's owner reference in line with deletionPolicy: under Retain a
   * deleted Database must not take its password along.
   */
  public static void syncSecretOwnership(Database db, Context<Database> context) {
    // The CA goes and stays with the credentials, whose ca.crt clients trust.
    syncSecretOwnership(db, context, Topology.of(db).credentialsSecret());
    syncSecretOwnership(db, context, Topology.of(db).caSecret());
    // The exporter's account lives in the retained data, so its password stays with it.
    syncSecretOwnership(db, context, Topology.of(db).monitoringSecret());
  }

  private static void syncSecretOwnership(Database db, Context<Database> context, String name) {
    Optional<Secret> secret =
        context.getSecondaryResources(Secret.class).stream()
            .filter(s -> s.getMetadata().getName().equals(name))
            .findFirst();
    if (secret.isEmpty()) {
      return;
    }
    List<OwnerReference> refs =
        Optional.ofNullable(secret.get().getMetadata().getOwnerReferences()).orElse(List.of());
    boolean owned =
        refs.stream().anyMatch(r -> Objects.equals(r.getUid(), db.getMetadata().getUid()));
    boolean wanted = deletes(db);
    if (owned == wanted) {
      return;
    }
    List<OwnerReference> next =
        wanted
            ? Stream.concat(refs.stream(), Stream.of(ownerReference(db))).toList()
            : refs.stream()
                .filter(r -> !Objects.equals(r.getUid(), db.getMetadata().getUid()))
                .toList();
    context
        .getClient()
        .secrets()
        .inNamespace(db.getMetadata().getNamespace())
        .withName(name)
        .edit(
            s -> {
              s.getMetadata().setOwnerReferences(next);
              return s;
            });
  }

  private static boolean deletes(Database db) {
    return db.getSpec().getDeletionPolicy() == DeletionPolicy.Delete;
  }
}
