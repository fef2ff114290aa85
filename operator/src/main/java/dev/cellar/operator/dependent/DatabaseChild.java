package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DeletionPolicy;
import dev.cellar.operator.Labels;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;

/**
 * A child of a Database whose name follows from the Database's name, so JOSDK finds it without
 * computing the desired state.
 */
abstract class DatabaseChild<R extends HasMetadata>
    extends KubernetesDependentResource<R, Database> {

  DatabaseChild(Class<R> type) {
    super(type);
  }

  /** The child's name for {@code db}; each subclass also offers it as a static {@code name}. */
  protected abstract String childName(Database db);

  @Override
  protected ResourceID targetSecondaryResourceID(Database db, Context<Database> context) {
    return new ResourceID(childName(db), db.getMetadata().getNamespace());
  }

  /** Name, namespace and labels of the child. */
  protected ObjectMeta metadata(Database db, Labels.Component component) {
    return new ObjectMetaBuilder()
        .withName(childName(db))
        .withNamespace(db.getMetadata().getNamespace())
        .withLabels(Labels.of(db, component))
        .build();
  }

  /**
   * Metadata of a child that holds data (credentials, dumps): owned by the Database, and so
   * garbage-collected with it, only when its deletionPolicy is Delete.
   */
  protected ObjectMeta dataMetadata(Database db, Labels.Component component) {
    ObjectMeta meta = metadata(db, component);
    if (db.getSpec().getDeletionPolicy() == DeletionPolicy.Delete) {
      meta.setOwnerReferences(List.of(ownerReference(db)));
    }
    return meta;
  }

  static OwnerReference ownerReference(Database db) {
    return new OwnerReferenceBuilder()
        .withApiVersion(db.getApiVersion())
        .withKind(db.getKind())
        .withName(db.getMetadata().getName())
        .withUid(db.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
