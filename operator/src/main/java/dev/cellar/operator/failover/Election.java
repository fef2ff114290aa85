package dev.cellar.operator.failover;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Whether to fail over, and to whom: a pure function of what the operator observed. No API calls,
 * no clock: every input is a parameter, so each decision is a unit test.
 */
public final class Election {
  private Election() {}

  /** One database pod as the election sees it. */
  public record Member(String name, int ordinal, boolean ready, String role) {
    boolean isReplica() {
      return "replica".equals(role);
    }
  }

  /**
   * What the operator knows about the primary.
   *
   * @param primary the current primary's name ({@code status.currentPrimary})
   * @param primaryAvailable whether that pod exists, is ready and is not being deleted
   * @param unavailableSince since when it has been unavailable, as observed; empty if available
   */
  public record Situation(
      boolean enabled,
      Duration delay,
      int replicas,
      String primary,
      boolean primaryAvailable,
      Optional<Instant> unavailableSince,
      List<Member> members) {}

  /** What to do. */
  public sealed interface Decision {
    /** The primary is available (or failover does not apply): nothing to do. */
    record Keep(String why) implements Decision {}

    /** The primary is unavailable, but not for long enough yet: look again at {@code at}. */
    record WaitUntil(Instant at, String why) implements Decision {}

    /** The delay is over: ask the ready replicas for their positions, then {@link #pick}. */
    record Elect(List<Member> candidates, String why) implements Decision {}

    /** The delay is over but no replica can take over. */
    record NoCandidate(String why) implements Decision {}
  }

  /** The first step: is a failover due, and who may be promoted. */
  public static Decision assess(Situation s, Instant now) {
    if (s.replicas() < 2) {
      return new Decision.Keep("a single server has no replica to fail over to");
    }
    if (s.primaryAvailable()) {
      return new Decision.Keep("primary " + s.primary() + " is available");
    }
    Instant since = s.unavailableSince().orElse(now);
    // Instants, not "for N s": a message that ticks would be a status write at every look.
    String why = "primary " + s.primary() + " unavailable since " + seconds(since);
    if (!s.enabled()) {
      return new Decision.Keep(why + "; spec.failover.enabled is false");
    }
    Instant due = since.plus(s.delay());
    if (now.isBefore(due)) {
      return new Decision.WaitUntil(
          due, why + "; failover at " + seconds(due) + " (spec.failover.delaySeconds)");
    }
    List<Member> candidates =
        s.members().stream()
            .filter(m -> !m.name().equals(s.primary()))
            .filter(Member::ready)
            .filter(Member::isReplica)
            .sorted(Comparator.comparingInt(Member::ordinal))
            .toList();
    if (candidates.isEmpty()) {
      return new Decision.NoCandidate(why + "; no ready replica can take over");
    }
    return new Decision.Elect(candidates, why);
  }

  /**
   * The second step: the most advanced candidate by replicated position (PostgreSQL's replayed LSN,
   * MySQL/MariaDB's applied GTIDs); the lowest ordinal on a tie. Candidates whose position could
   * not be read are never chosen.
   */
  public static Optional<Member> pick(
      List<Member> candidates, Map<String, OptionalLong> positions) {
    return candidates.stream()
        .filter(m -> positions.getOrDefault(m.name(), OptionalLong.empty()).isPresent())
        .max(
            Comparator.<Member>comparingLong(m -> positions.get(m.name()).getAsLong())
                .thenComparing(Comparator.comparingInt(Member::ordinal).reversed()));
  }

  private static String seconds(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
