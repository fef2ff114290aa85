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
   * @param synchronous whether a commit was acknowledged once a replica had it (spec.replication
   *     mode sync): then every replica's position is needed before one is promoted
   * @param standbys every pod that may have streamed from the primary (the Database's pods but the
   *     primary's, ready or not, with a role or not: Failover.standbys)
   */
  public record Situation(
      boolean enabled,
      Duration delay,
      int replicas,
      String primary,
      boolean primaryAvailable,
      Optional<Instant> unavailableSince,
      List<Member> members,
      boolean synchronous,
      List<String> standbys) {}

  /** What to do. */
  public sealed interface Decision {
    /** The primary is available (or failover does not apply): nothing to do. */
    record Keep(String why) implements Decision {}

    /** The primary is unavailable, but not for long enough yet: look again at {@code at}. */
    record WaitUntil(Instant at, String why) implements Decision {}

    /**
     * The delay is over: ask {@code asked} for their positions, then {@link #pick} among the
     * candidates (the ready replicas). Asynchronous replication asks the candidates only;
     * synchronous asks every standby, since the one that acknowledged a commit may be any.
     */
    record Elect(List<Member> candidates, List<String> asked, boolean synchronous, String why)
        implements Decision {}

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
    List<String> asked =
        s.synchronous() ? s.standbys() : candidates.stream().map(Member::name).toList();
    return new Decision.Elect(candidates, asked, s.synchronous(), why);
  }

  /** Whom to promote, or why no one yet. */
  public sealed interface Choice {
    record Promote(Member member, long position) implements Choice {}

    record Wait(String why) implements Choice {}
  }

  /**
   * The second step: the most advanced candidate by replicated position (PostgreSQL's received or
   * replayed LSN, MariaDB's received or applied GTIDs, MySQL's applied ones); the lowest ordinal on
   * a tie. Candidates whose position could not be read are never chosen.
   *
   * <p>With synchronous replication a commit was acknowledged once any one standby had it, and the
   * primary streamed to all of them: only the most advanced of all holds every acknowledged commit
   * for sure. So every standby must answer, and the one promoted must be as far as the furthest;
   * otherwise the election waits (a standby that did not answer may be the only one with the last
   * commits: promoting another would lose them while the client was told they were kept). The way
   * out, when a standby is gone for good, is the user's: asynchronous mode.
   */
  public static Choice pick(Decision.Elect elect, Map<String, OptionalLong> positions) {
    Comparator<Member> furthest =
        Comparator.<Member>comparingLong(m -> positions.get(m.name()).getAsLong())
            .thenComparing(Comparator.comparingInt(Member::ordinal).reversed());
    Optional<Member> best =
        elect.candidates().stream()
            .filter(m -> positions.getOrDefault(m.name(), OptionalLong.empty()).isPresent())
            .max(furthest);
    if (!elect.synchronous()) {
      return best.<Choice>map(m -> new Choice.Promote(m, positions.get(m.name()).getAsLong()))
          .orElseGet(() -> new Choice.Wait("no ready replica reported its replication position"));
    }
    String rule =
        "spec.replication.mode is sync: a commit was acknowledged once any one replica had it, so"
            + " every replica's position is needed before one is promoted";
    String way =
        "; to fail over without it, set spec.replication.mode to async (commits only it had would"
            + " be lost)";
    List<String> silent =
        elect.asked().stream()
            .filter(n -> positions.getOrDefault(n, OptionalLong.empty()).isEmpty())
            .toList();
    if (!silent.isEmpty()) {
      return new Choice.Wait(
          rule
              + "; no position from "
              + String.join(", ", silent)
              + " (asked again until its server answers)"
              + way);
    }
    long furthestPosition =
        elect.asked().stream().mapToLong(n -> positions.get(n).getAsLong()).max().orElse(-1);
    if (best.isEmpty() || positions.get(best.get().name()).getAsLong() < furthestPosition) {
      List<String> ahead =
          elect.asked().stream()
              .filter(n -> positions.get(n).getAsLong() == furthestPosition)
              .toList();
      return new Choice.Wait(
          rule
              + "; the furthest, "
              + String.join(", ", ahead)
              + " (position "
              + furthestPosition
              + "), is not a ready replica (promoted once it is)"
              + way);
    }
    return new Choice.Promote(best.get(), furthestPosition);
  }

  private static String seconds(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
