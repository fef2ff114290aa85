package dev.cellar.operator.status;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.operator.Labels;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on the Database for what a user looks for in {@code kubectl describe}. Events
 * follow status transitions, so a Database that does not change emits none.
 */
public final class EventRecorder {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  /** Progressing reasons that announce an operation the user started. */
  static final java.util.Set<String> STARTED_OPERATIONS =
      java.util.Set.of("Upgrading", "ResizingStorage");

  private final KubernetesClient client;

  public EventRecorder(KubernetesClient client) {
    this.client = client;
  }

  /** An event to emit: type, reason, message. */
  public record Note(String type, String reason, String message) {}

  /** The events that the change from {@code before} to {@code after} deserves. */
  public static List<Note> notes(Database db, DatabaseStatus before, DatabaseStatus after) {
    Map<String, Note> notes = new LinkedHashMap<>();
    List<Condition> old = before == null ? List.of() : before.getConditions();
    List<Condition> now = after.getConditions();
    if (old == null || old.isEmpty()) {
      notes.put(
          "Created",
          new Note(
              NORMAL,
              "Created",
              "creating "
                  + db.getSpec().getEngine()
                  + " "
                  + db.getSpec().getVersion()
                  + " with "
                  + db.getSpec().getReplicas()
                  + " replica(s)"));
    }
    if (becameTrueOrChangedReason(old, now, StatusFactory.DEGRADED)) {
      Condition degraded = ConditionSet.find(now, StatusFactory.DEGRADED).orElseThrow();
      notes.put(
          degraded.getReason(), new Note(WARNING, degraded.getReason(), degraded.getMessage()));
    }
    Optional<Condition> backup = ConditionSet.find(now, StatusFactory.BACKUP_READY);
    if (backup.isPresent()
        && StatusFactory.BACKUP_FAILED.equals(backup.get().getReason())
        && !reasonOf(old, StatusFactory.BACKUP_READY)
            .equals(Optional.of(StatusFactory.BACKUP_FAILED))) {
      notes.putIfAbsent(
          StatusFactory.BACKUP_FAILED,
          new Note(WARNING, StatusFactory.BACKUP_FAILED, backup.get().getMessage()));
    }
    Optional<Condition> progressing = ConditionSet.find(now, StatusFactory.PROGRESSING);
    if (progressing.isPresent()
        && STARTED_OPERATIONS.contains(progressing.get().getReason())
        && !reasonOf(old, StatusFactory.PROGRESSING)
            .equals(Optional.of(progressing.get().getReason()))) {
      notes.put(
          progressing.get().getReason(),
          new Note(NORMAL, progressing.get().getReason(), progressing.get().getMessage()));
    }
    if (!ConditionSet.isTrue(old, StatusFactory.READY)
        && ConditionSet.isTrue(now, StatusFactory.READY)) {
      notes.put(
          "Ready",
          new Note(
              NORMAL, "Ready", ConditionSet.find(now, StatusFactory.READY).get().getMessage()));
    }
    if (before != null
        && before.getReplicas() != null
        && !Objects.equals(before.getReplicas(), after.getReplicas())) {
      notes.put(
          "Scaled",
          new Note(
              NORMAL,
              "Scaled",
              "scaling from " + before.getReplicas() + " to " + after.getReplicas() + " replicas"));
    }
    return List.copyOf(notes.values());
  }

  private static boolean becameTrueOrChangedReason(
      List<Condition> old, List<Condition> now, String type) {
    if (!ConditionSet.isTrue(now, type)) {
      return false;
    }
    return !ConditionSet.isTrue(old, type) || !reasonOf(old, type).equals(reasonOf(now, type));
  }

  private static Optional<String> reasonOf(List<Condition> conditions, String type) {
    return ConditionSet.find(conditions, type).map(Condition::getReason);
  }

  /** Emits the notes; an event that cannot be written is logged, never fatal. */
  public void emit(Database db, List<Note> notes) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    for (Note note : notes) {
      // The log tells the same story as kubectl describe (the MDC names the Database).
      if (WARNING.equals(note.type())) {
        log.warn("{}: {}", note.reason(), note.message());
      } else {
        log.info("{}: {}", note.reason(), note.message());
      }
      try {
        client
            .v1()
            .events()
            .inNamespace(db.getMetadata().getNamespace())
            .resource(
                new EventBuilder()
                    .withNewMetadata()
                    .withName(
                        db.getMetadata().getName()
                            + "."
                            + Long.toHexString(
                                ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE))
                    .withNamespace(db.getMetadata().getNamespace())
                    .endMetadata()
                    .withNewInvolvedObject()
                    .withApiVersion(db.getApiVersion())
                    .withKind(db.getKind())
                    .withName(db.getMetadata().getName())
                    .withNamespace(db.getMetadata().getNamespace())
                    .withUid(db.getMetadata().getUid())
                    .endInvolvedObject()
                    .withType(note.type())
                    .withReason(note.reason())
                    .withMessage(note.message())
                    .withNewSource()
                    .withComponent(Labels.OPERATOR)
                    .endSource()
                    .withReportingComponent(Labels.OPERATOR)
                    .withFirstTimestamp(now)
                    .withLastTimestamp(now)
                    .withCount(1)
                    .build())
            .create();
      } catch (RuntimeException e) {
        log.warn(
            "could not record event {} on {}: {}",
            note.reason(),
            db.getMetadata().getName(),
            e.toString());
      }
    }
  }
}
