package dev.cellar.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.operator.rollout.RollingUpdate.Member;
import dev.cellar.operator.rollout.RollingUpdate.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The order of a rolling update: replicas, one switchover, the former primary last. */
class RollingUpdateTest {
  private static final Optional<String> NEW = Optional.of("new");

  private static Member m(int ordinal, String revision) {
    return new Member("db-" + ordinal, ordinal, revision, true, false);
  }

  private static Step decide(String primary, List<Member> members) {
    return RollingUpdate.decide(NEW, members.size(), primary, Optional.empty(), true, members);
  }

  @Test
  void nothingToDoWhenEveryPodRunsTheUpdateRevision() {
    assertThat(decide("db-0", List.of(m(0, "new"), m(1, "new"), m(2, "new"))))
        .isInstanceOf(Step.Done.class);
    assertThat(RollingUpdate.decide(Optional.empty(), 3, "db-0", Optional.empty(), true, List.of()))
        .isInstanceOf(Step.Done.class);
  }

  @Test
  void replicasGoFirstWhateverTheirOrdinal() {
    // The primary is pod 2: the controller's order (2, 1, 0) would restart it first.
    Step step = decide("db-2", List.of(m(0, "old"), m(1, "old"), m(2, "old")));
    assertThat(step).isEqualTo(new Step.Replace("db-1", "updating replica db-1 (3 pod(s) to go)"));
    step = decide("db-2", List.of(m(0, "old"), m(1, "new"), m(2, "old")));
    assertThat(step).isInstanceOf(Step.Replace.class);
    assertThat(((Step.Replace) step).pod()).isEqualTo("db-0");
  }

  @Test
  void thenOneSwitchoverToAnUpdatedReplica() {
    Step step = decide("db-0", List.of(m(0, "old"), m(1, "new"), m(2, "new")));
    assertThat(step).isInstanceOf(Step.SwitchOver.class);
    assertThat(((Step.SwitchOver) step).to()).isEqualTo("db-1");
  }

  @Test
  void theFormerPrimaryIsReplacedLastAsAReplica() {
    Step step = decide("db-1", List.of(m(0, "old"), m(1, "new"), m(2, "new")));
    assertThat(step).isInstanceOf(Step.Replace.class);
    assertThat(((Step.Replace) step).pod()).isEqualTo("db-0");
  }

  @Test
  void onePodAtATime() {
    List<Member> members = new ArrayList<>(List.of(m(0, "old"), m(2, "old")));
    members.add(new Member("db-1", 1, "new", false, false));
    Step step = decide("db-0", members);
    assertThat(step).isInstanceOf(Step.Wait.class);
    assertThat(((Step.Wait) step).pod()).isEqualTo("db-1");
    // A pod still going away counts as busy too.
    step =
        decide("db-0", List.of(m(0, "old"), new Member("db-1", 1, "old", true, true), m(2, "new")));
    assertThat(step).isInstanceOf(Step.Wait.class);
    // A missing pod (being recreated) too.
    step =
        RollingUpdate.decide(
            NEW, 3, "db-0", Optional.empty(), true, List.of(m(0, "old"), m(2, "new")));
    assertThat(step).isInstanceOf(Step.Wait.class);
  }

  @Test
  void noSecondSwitchoverWhileOneIsAskedFor() {
    Step step =
        RollingUpdate.decide(
            NEW,
            3,
            "db-0",
            Optional.of("db-1"),
            true,
            List.of(m(0, "old"), m(1, "new"), m(2, "new")));
    assertThat(step).isInstanceOf(Step.Wait.class);
  }

  @Test
  void beforeTheFirstPrimaryThePrimaryIsReplacedInPlace() {
    Step step =
        RollingUpdate.decide(
            NEW,
            3,
            "db-0",
            Optional.empty(),
            false,
            List.of(m(0, "old"), m(1, "new"), m(2, "new")));
    assertThat(step).isInstanceOf(Step.Replace.class);
    assertThat(((Step.Replace) step).pod()).isEqualTo("db-0");
  }

  @Test
  void aSinglePodIsRestartedInPlace() {
    Step step = decide("db-0", List.of(m(0, "old")));
    assertThat(step).isInstanceOf(Step.Replace.class);
    assertThat(((Step.Replace) step).pod()).isEqualTo("db-0");
  }
}
