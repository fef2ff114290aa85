package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DeletionPolicy;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Keeps the credentials Secret's owner reference in line with deletionPolicy. The Secret itself is
 * never rewritten, so a later change of policy is applied here by patching only its owner
 * references: under Retain a deleted Database must not take its password along.
 */
public final class SecretOwnership {
  private SecretOwnership() {}

  public static void sync(Database db, Context<Database> context) {
    Optional<Secret> secret =
        context.getSecondaryResources(Secret.class).stream()
            .filter(s -> s.getMetadata().getName().equals(CredentialsSecretDependent.name(db)))
            .findFirst();
    if (secret.isEmpty()) {
      return;
    }
    List<OwnerReference> refs =
        Optional.ofNullable(secret.get().getMetadata().getOwnerReferences()).orElse(List.of());
    boolean owned =
        refs.stream().anyMatch(r -> Objects.equals(r.getUid(), db.getMetadata().getUid()));
    boolean wanted = db.getSpec().getDeletionPolicy() == DeletionPolicy.Delete;
    if (owned == wanted) {
      return;
    }
    List<OwnerReference> next =
        wanted
            ? Stream.concat(refs.stream(), Stream.of(DatabaseChild.ownerReference(db))).toList()
            : refs.stream()
                .filter(r -> !Objects.equals(r.getUid(), db.getMetadata().getUid()))
                .toList();
    context
        .getClient()
        .secrets()
        .inNamespace(db.getMetadata().getNamespace())
        .withName(CredentialsSecretDependent.name(db))
        .edit(
            s -> {
              s.getMetadata().setOwnerReferences(next);
              return s;
            });
  }
}
