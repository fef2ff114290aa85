package dev.cellar.operator.status;

import static dev.cellar.operator.events.EventRecorder.NORMAL;
import static dev.cellar.operator.events.EventRecorder.WARNING;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.CredentialsStatus;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.TlsStatus;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.events.EventRecorder.Note;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The Events a status transition deserves, which {@link EventRecorder} writes: what a user looks
 * for in {@code kubectl describe}. A Database whose status does not change gets none.
 */
public final class StatusEvents {
  private StatusEvents() {}

  /** Progressing reasons that announce an operation the user started. */
  static final Set<Reason> STARTED_OPERATIONS =
      Set.of(
          Reason.UPGRADING,
          Reason.UPGRADING_MAJOR,
          Reason.RESIZING_STORAGE,
          Reason.HIBERNATING,
          Reason.WAKING);

  /** Progressing reasons that announce an operation finished (its end is not Ready). */
  static final Set<Reason> FINISHED_OPERATIONS = Set.of(Reason.HIBERNATED);

  /** The Progressing reasons of a Database that is hibernating or hibernated. */
  private static final Set<String> HIBERNATION =
      Set.of(Reason.HIBERNATING.value(), Reason.HIBERNATED.value());

  /** The events that the change from {@code before} to {@code after} deserves. */
  public static List<Note> notes(Database db, DatabaseStatus before, DatabaseStatus after) {
    Map<String, Note> notes = new LinkedHashMap<>();
    List<Condition> old = before == null ? List.of() : before.getConditions();
    List<Condition> now = after.getConditions();
    if (old == null || old.isEmpty()) {
      note(
          notes,
          NORMAL,
          Reason.CREATED,
          "creating "
              + db.getSpec().getEngine()
              + " "
              + db.getSpec().getVersion()
              + " with "
              + db.getSpec().getReplicas()
              + " replica(s)");
    }
    // Every Degraded reason is a Warning when it appears.
    if (ConditionSet.isTrue(now, Type.DEGRADED)
        && (!ConditionSet.isTrue(old, Type.DEGRADED) || changedReason(old, now, Type.DEGRADED))) {
      Condition degraded = ConditionSet.find(now, Type.DEGRADED).orElseThrow();
      notes.put(
          degraded.getReason(), new Note(WARNING, degraded.getReason(), degraded.getMessage()));
    }
    if (becameReason(old, now, Type.BACKUP_READY, Set.of(Reason.BACKUP_FAILED))) {
      notes.putIfAbsent(
          Reason.BACKUP_FAILED.value(),
          new Note(WARNING, Reason.BACKUP_FAILED, message(now, Type.BACKUP_READY)));
    }
    if (becameReason(old, now, Type.PROGRESSING, STARTED_OPERATIONS)) {
      Condition progressing = ConditionSet.find(now, Type.PROGRESSING).orElseThrow();
      notes.put(
          progressing.getReason(),
          new Note(NORMAL, progressing.getReason(), progressing.getMessage()));
    }
    // Stopping or starting pods can take less than a reconcile: a status that went from Ready
    // straight to Hibernated, or from Hibernated straight back, still tells of the start.
    Optional<String> wasProgressing = ConditionSet.reasonOf(old, Type.PROGRESSING);
    Optional<String> isProgressing = ConditionSet.reasonOf(now, Type.PROGRESSING);
    if (isProgressing.equals(Optional.of(Reason.HIBERNATED.value()))
        && wasProgressing.isPresent()
        && !HIBERNATION.contains(wasProgressing.get())) {
      note(notes, NORMAL, Reason.HIBERNATING, "stopping the pods");
    }
    if (wasProgressing.isPresent()
        && HIBERNATION.contains(wasProgressing.get())
        && isProgressing.isPresent()
        && !HIBERNATION.contains(isProgressing.get())
        && !isProgressing.get().equals(Reason.WAKING.value())) {
      note(notes, NORMAL, Reason.WAKING, "waking from hibernation");
    }
    if (becameReason(old, now, Type.PROGRESSING, FINISHED_OPERATIONS)) {
      Condition progressing = ConditionSet.find(now, Type.PROGRESSING).orElseThrow();
      notes.put(
          progressing.getReason(),
          new Note(NORMAL, progressing.getReason(), progressing.getMessage()));
    }
    if (!ConditionSet.isTrue(old, Type.READY) && ConditionSet.isTrue(now, Type.READY)) {
      note(notes, NORMAL, Reason.READY, message(now, Type.READY));
    }
    if (before != null
        && before.getReplicas() != null
        && !Objects.equals(before.getReplicas(), after.getReplicas())) {
      note(
          notes,
          NORMAL,
          Reason.SCALED,
          "scaling from " + before.getReplicas() + " to " + after.getReplicas() + " replicas");
    }
    String rotated =
        Optional.ofNullable(after.getCredentials())
            .map(CredentialsStatus::getLastRotationTime)
            .orElse(null);
    if (rotated != null
        && !rotated.equals(
            Optional.ofNullable(before)
                .map(DatabaseStatus::getCredentials)
                .map(CredentialsStatus::getLastRotationTime)
                .orElse(null))) {
      note(
          notes,
          NORMAL,
          Reason.CREDENTIALS_APPLIED,
          "the credentials Secret's changed passwords are applied in every running server");
    }
    Optional<TlsStatus> tlsBefore = Optional.ofNullable(before).map(DatabaseStatus::getTls);
    Optional<TlsStatus> tlsAfter = Optional.ofNullable(after.getTls());
    if (tlsBefore.map(TlsStatus::getNotAfter).isPresent()
        && tlsAfter.map(TlsStatus::getNotAfter).isPresent()
        && tlsBefore.get().getSecretName().equals(tlsAfter.get().getSecretName())
        && !tlsBefore.get().getNotAfter().equals(tlsAfter.get().getNotAfter())) {
      note(
          notes,
          NORMAL,
          Reason.CERTIFICATE_RENEWED,
          "the server certificate in "
              + tlsAfter.get().getSecretName()
              + " was renewed; it expires at "
              + tlsAfter.get().getNotAfter()
              + " and the servers reload it without a restart");
    }
    return List.copyOf(notes.values());
  }

  private static void note(Map<String, Note> notes, String type, Reason reason, String message) {
    notes.put(reason.value(), new Note(type, reason, message));
  }

  /** Whether the condition of {@code type} now has one of {@code reasons} and did not before. */
  private static boolean becameReason(
      List<Condition> old, List<Condition> now, Type type, Set<Reason> reasons) {
    Optional<String> reason = ConditionSet.reasonOf(now, type);
    return reason.isPresent()
        && reasons.stream().anyMatch(r -> r.value().equals(reason.get()))
        && !ConditionSet.reasonOf(old, type).equals(reason);
  }

  private static boolean changedReason(List<Condition> old, List<Condition> now, Type type) {
    return !ConditionSet.reasonOf(old, type).equals(ConditionSet.reasonOf(now, type));
  }

  private static String message(List<Condition> conditions, Type type) {
    return ConditionSet.find(conditions, type).map(Condition::getMessage).orElse("");
  }
}
