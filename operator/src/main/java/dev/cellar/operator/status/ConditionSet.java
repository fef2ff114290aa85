package dev.cellar.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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

  public ConditionSet set(String type, boolean status, String reason, String message) {
    String value = status ? TRUE : FALSE;
    String transition =
        find(previous, type)
            .filter(old -> Objects.equals(old.getStatus(), value))
            .map(Condition::getLastTransitionTime)
            .orElse(now.toString());
    conditions.add(
        new ConditionBuilder()
            .withType(type)
            .withStatus(value)
            .withReason(reason)
            .withMessage(message)
            .withLastTransitionTime(transition)
            .withObservedGeneration(generation)
            .build());
    return this;
  }

  public List<Condition> build() {
    return List.copyOf(conditions);
  }

  public static java.util.Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions == null
        ? java.util.Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  public static boolean isTrue(List<Condition> conditions, String type) {
    return find(conditions, type).map(c -> TRUE.equals(c.getStatus())).orElse(false);
  }
}
