package dev.cellar.operator.events;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Keys;
import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on the Database for what a user looks for in {@code kubectl describe}: written
 * for the status's transitions ({@code StatusEvents}), so a Database that does not change emits
 * none, and by the steps that act at once (a failover, a switchover).
 */
public final class EventRecorder {
  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  private final KubernetesClient client;

  public EventRecorder(KubernetesClient client) {
    this.client = client;
  }

  /** An event to emit: type, reason, message. */
  public record Note(String type, String reason, String message) {
    public Note(String type, Reason reason, String message) {
      this(type, reason.value(), message);
    }
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
            .resource(event(db, note, now))
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

  /** The Event of {@code note} on {@code db}, at {@code now} (an RFC 3339 time). */
  public static Event event(Database db, Note note, String now) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(
            db.getMetadata().getName()
                + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE))
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
        .withComponent(Keys.OPERATOR)
        .endSource()
        .withReportingComponent(Keys.OPERATOR)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .build();
  }
}
