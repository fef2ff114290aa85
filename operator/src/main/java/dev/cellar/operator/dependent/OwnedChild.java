package dev.cellar.operator.dependent;

import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;

/** A child that the operator keeps equal to its desired state and that dies with the Database. */
abstract class OwnedChild<R extends HasMetadata> extends DatabaseChild<R>
    implements Creator<R, Database>, Updater<R, Database>, GarbageCollected<Database> {

  OwnedChild(Class<R> type) {
    super(type);
  }
}
