package dev.cellar.operator.backup;

import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which updates of a Database are reconciled: a new generation (a spec change), deletion, or a
 * change of an annotation that asks Cellar to act ({@code cellar.dev/backup-now}, {@code
 * cellar.dev/verify-now}, {@code cellar.dev/switchover-to}). JOSDK's generation-aware processing
 * would drop annotation changes, since they leave the generation as it is; this filter replaces it
 * and still drops the updates of the status alone.
 */
public class ImperativeAnnotations implements OnUpdateFilter<Database> {
  /** The annotations that are requests. */
  public static final List<String> REQUESTS =
      List.of(Keys.BACKUP_NOW_ANNOTATION, Keys.VERIFY_NOW_ANNOTATION, Keys.SWITCHOVER_ANNOTATION);

  @Override
  public boolean accept(Database updated, Database old) {
    Long before = old.getMetadata().getGeneration();
    Long after = updated.getMetadata().getGeneration();
    if (before == null || after == null || after > before) {
      return true;
    }
    if (updated.isMarkedForDeletion() && !old.isMarkedForDeletion()) {
      return true;
    }
    return REQUESTS.stream().anyMatch(a -> !Objects.equals(value(updated, a), value(old, a)));
  }

  private static String value(Database db, String annotation) {
    return Optional.ofNullable(db.getMetadata().getAnnotations())
        .map(a -> a.get(annotation))
        .orElse(null);
  }
}
