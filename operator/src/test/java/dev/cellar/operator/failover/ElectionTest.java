package dev.cellar.operator.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.operator.failover.Election.Decision;
import dev.cellar.operator.failover.Election.Member;
import dev.cellar.operator.failover.Election.Situation;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ElectionTest {
  static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
  static final Duration DELAY = Duration.ofSeconds(5);

  static Member m(int ordinal, boolean ready, String role) {
    return new Member("db-" + ordinal, ordinal, ready, role);
  }

  static Situation down(int secondsAgo, List<Member> members) {
    return down(secondsAgo, members, false);
  }

  static Situation down(int secondsAgo, List<Member> members, boolean synchronous) {
    return new Situation(
        true,
        DELAY,
        members.size(),
        "db-0",
        false,
        Optional.of(NOW.minusSeconds(secondsAgo)),
        members,
        synchronous,
        members.stream().map(Member::name).filter(n -> !n.equals("db-0")).toList());
  }

  static final List<Member> THREE =
      List.of(m(0, false, "primary"), m(1, true, "replica"), m(2, true, "replica"));

  @Test
  void anAvailablePrimaryIsKept() {
    Situation s =
        new Situation(
            true,
            DELAY,
            3,
            "db-0",
            true,
            Optional.empty(),
            List.of(m(0, true, "primary"), m(1, true, "replica"), m(2, true, "replica")),
            false,
            List.of("db-1", "db-2"));
    assertThat(Election.assess(s, NOW)).isInstanceOf(Decision.Keep.class);
  }

  @Test
  void aSingleServerNeverFailsOver() {
    Situation s =
        new Situation(
            true,
            DELAY,
            1,
            "db-0",
            false,
            Optional.of(NOW.minusSeconds(600)),
            List.of(),
            false,
            List.of());
    assertThat(Election.assess(s, NOW)).isInstanceOf(Decision.Keep.class);
  }

  @Test
  void theDelayIsWaitedOutFromWhenThePrimaryWasFirstSeenUnavailable() {
    Decision d = Election.assess(down(2, THREE), NOW);
    assertThat(d).isInstanceOf(Decision.WaitUntil.class);
    assertThat(((Decision.WaitUntil) d).at()).isEqualTo(NOW.plusSeconds(3));
    assertThat(((Decision.WaitUntil) d).why())
        .contains(
            "unavailable since " + NOW.minusSeconds(2).truncatedTo(ChronoUnit.SECONDS),
            "failover at " + NOW.plusSeconds(3).truncatedTo(ChronoUnit.SECONDS));
    // The same words a moment later: a look that finds nothing new writes nothing.
    assertThat(((Decision.WaitUntil) Election.assess(down(2, THREE), NOW.plusSeconds(1))).why())
        .isEqualTo(((Decision.WaitUntil) d).why());
  }

  @Test
  void afterTheDelayTheReadyReplicasAreCandidates() {
    Decision d = Election.assess(down(5, THREE), NOW);
    assertThat(d).isInstanceOf(Decision.Elect.class);
    assertThat(((Decision.Elect) d).candidates())
        .extracting(Member::name)
        .containsExactly("db-1", "db-2");
  }

  @Test
  void disabledFailoverKeepsTheLostPrimary() {
    Situation s = down(600, THREE);
    Situation off =
        new Situation(
            false,
            s.delay(),
            s.replicas(),
            s.primary(),
            false,
            s.unavailableSince(),
            s.members(),
            false,
            s.standbys());
    Decision d = Election.assess(off, NOW);
    assertThat(d).isInstanceOf(Decision.Keep.class);
    assertThat(((Decision.Keep) d).why()).contains("spec.failover.enabled is false");
  }

  @Test
  void unreadyOrUnlabelledPodsAreNeverPromoted() {
    // db-1 is not ready; db-2 has no role yet (a recreated pod that may hold an empty volume).
    Decision d =
        Election.assess(
            down(10, List.of(m(0, false, "primary"), m(1, false, "replica"), m(2, true, null))),
            NOW);
    assertThat(d).isInstanceOf(Decision.NoCandidate.class);
    assertThat(((Decision.NoCandidate) d).why()).contains("no ready replica");
  }

  /** Elects among the ready replicas of {@code members}, as assess does after the delay. */
  static Decision.Elect elect(List<Member> members, boolean synchronous) {
    return (Decision.Elect) Election.assess(down(10, members, synchronous), NOW);
  }

  static Optional<String> promoted(Election.Choice choice) {
    return choice instanceof Election.Choice.Promote p
        ? Optional.of(p.member().name())
        : Optional.empty();
  }

  @Test
  void theMostAdvancedReplicaWins() {
    assertThat(
            promoted(
                Election.pick(
                    elect(THREE, false),
                    Map.of("db-1", OptionalLong.of(100), "db-2", OptionalLong.of(250)))))
        .contains("db-2");
  }

  @Test
  void aTieGoesToTheLowestOrdinal() {
    List<Member> four = List.of(THREE.get(0), THREE.get(1), THREE.get(2), m(3, true, "replica"));
    assertThat(
            promoted(
                Election.pick(
                    elect(four, false),
                    Map.of(
                        "db-1", OptionalLong.of(7),
                        "db-2", OptionalLong.of(9),
                        "db-3", OptionalLong.of(9)))))
        .contains("db-2");
  }

  @Test
  void aReplicaWhosePositionCannotBeReadIsNeverChosen() {
    assertThat(
            promoted(
                Election.pick(
                    elect(THREE, false),
                    Map.of("db-1", OptionalLong.empty(), "db-2", OptionalLong.of(3)))))
        .contains("db-2");
    Election.Choice none =
        Election.pick(
            elect(THREE, false),
            Map.of("db-1", OptionalLong.empty(), "db-2", OptionalLong.empty()));
    assertThat(none).isInstanceOf(Election.Choice.Wait.class);
    assertThat(((Election.Choice.Wait) none).why()).contains("no ready replica reported");
  }

  @Test
  void synchronousReplicationAsksEveryStandbyEvenAnUnreadyOne() {
    List<Member> oneUnready =
        List.of(m(0, false, "primary"), m(1, true, "replica"), m(2, false, "replica"));
    Decision.Elect e = elect(oneUnready, true);
    assertThat(e.candidates()).extracting(Member::name).containsExactly("db-1");
    assertThat(e.asked()).containsExactly("db-1", "db-2");
    // Asynchronous replication asks the ready ones only.
    assertThat(elect(oneUnready, false).asked()).containsExactly("db-1");
  }

  @Test
  void synchronousReplicationWaitsForAStandbyThatDoesNotAnswer() {
    // db-2 may be the only one that acknowledged the last commits: db-1 is not promoted without
    // knowing, although asynchronous replication would promote it.
    Map<String, OptionalLong> positions =
        Map.of("db-1", OptionalLong.of(100), "db-2", OptionalLong.empty());
    Election.Choice c = Election.pick(elect(THREE, true), positions);
    assertThat(c).isInstanceOf(Election.Choice.Wait.class);
    assertThat(((Election.Choice.Wait) c).why())
        .contains(
            "spec.replication.mode is sync",
            "no position from db-2",
            "set spec.replication.mode to async");
    assertThat(promoted(Election.pick(elect(THREE, false), positions))).contains("db-1");
  }

  @Test
  void synchronousReplicationWaitsWhileTheFurthestStandbyIsNotReady() {
    List<Member> oneUnready =
        List.of(m(0, false, "primary"), m(1, true, "replica"), m(2, false, "replica"));
    Election.Choice c =
        Election.pick(
            elect(oneUnready, true),
            Map.of("db-1", OptionalLong.of(100), "db-2", OptionalLong.of(250)));
    assertThat(c).isInstanceOf(Election.Choice.Wait.class);
    assertThat(((Election.Choice.Wait) c).why())
        .contains("the furthest, db-2 (position 250), is not a ready replica");
    // A ready replica as far as the unready one is as good.
    assertThat(
            promoted(
                Election.pick(
                    elect(oneUnready, true),
                    Map.of("db-1", OptionalLong.of(250), "db-2", OptionalLong.of(250)))))
        .contains("db-1");
  }

  @Test
  void synchronousReplicationPromotesTheFurthestWhenAllAnswer() {
    Election.Choice c =
        Election.pick(
            elect(THREE, true), Map.of("db-1", OptionalLong.of(300), "db-2", OptionalLong.of(250)));
    assertThat(c).isEqualTo(new Election.Choice.Promote(THREE.get(1), 300));
  }
}
