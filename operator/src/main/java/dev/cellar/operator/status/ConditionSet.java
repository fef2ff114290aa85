package dev.cellar.operator.status;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds a status's conditions from the previous ones: lastTransitionTime changes only when a
 * condition's status flips, so an unchanged condition writes nothing.
 */
public final class ConditionSet {
  public static final String TRUE = "True";
  public static final String FALSE = "False";

  private final List<Condition> previous;
  private final List<Condition> conditions = new ArrayList<>();
  private final long generation;
  private final Instant now;

  public ConditionSet(List<Condition> previous, long generation, Instant now) {
    this.previous = previous == null ? List.of() : previous;
    this.generation = generation;
    this.now = now.truncatedTo(ChronoUnit.SECONDS);
  }

  public ConditionSet set(Type type, boolean status, Reason reason, String message) {
    String value = status ? TRUE : FALSE;
    String transition =
        find(previous, type)
            .filter(old -> Objects.equals(old.getStatus(), value))
            .map(Condition::getLastTransitionTime)
            .orElse(now.toString());
    conditions.add(
        new ConditionBuilder()
            .withType(type.value())
            .withStatus(value)
            .withReason(reason.value())
            .withMessage(message)
            .withLastTransitionTime(transition)
            .withObservedGeneration(generation)
            .build());
    return this;
  }

  public ConditionSet set(Type type, StatusFactory.Verdict verdict) {
    return set(type, verdict.status(), verdict.reason(), verdict.message());
  }

  public List<Condition> build() {
    return List.copyOf(conditions);
  }

  public static Optional<Condition> find(List<Condition> conditions, Type type) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> type.value().equals(c.getType())).findFirst();
  }

  /** The reason of the condition of {@code type}, if it is there. */
  public static Optional<String> reasonOf(List<Condition> conditions, Type type) {
    return find(conditions, type).map(Condition::getReason);
  }

  public static boolean isTrue(List<Condition> conditions, Type type) {
    return find(conditions, type).map(c -> TRUE.equals(c.getStatus())).orElse(false);
  }
}
