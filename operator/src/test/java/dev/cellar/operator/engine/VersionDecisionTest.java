package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Conditions.Reason;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VersionDecisionTest {
  static final EngineProfile POSTGRES = new PostgresProfile();
  static final EngineProfile MYSQL = new MySqlProfile();
  static final EngineProfile MARIADB = new MariaDbProfile();

  static VersionDecision decide(EngineProfile p, String wanted, String running) {
    return VersionDecision.decide(p, wanted, Optional.ofNullable(running));
  }

  @Test
  void aSupportedVersionRunsWhenNothingRuns() {
    VersionDecision d = decide(POSTGRES, "16", null);
    assertThat(d.target()).hasValue(EngineVersion.parse("16"));
    assertThat(d.refusal()).isEmpty();
  }

  @Test
  void anUnsupportedVersionRunsNothingAndListsTheSupportedOnes() {
    VersionDecision d = decide(POSTGRES, "9", null);
    assertThat(d.target()).isEmpty();
    assertThat(d.refusal().get().reason()).isEqualTo(Reason.UNSUPPORTED_VERSION);
    assertThat(d.refusal().get().message())
        .contains("postgresql 9 is not supported")
        .contains("13, 14, 15, 16, 17, 18");
    assertThat(decide(MYSQL, "5.7", null).refusal().get().message()).contains("8.0, 8.4, 9");
    assertThat(decide(MARIADB, "11", null).refusal()).isPresent();
  }

  @Test
  void anUnsupportedVersionKeepsWhatRuns() {
    VersionDecision d = decide(MYSQL, "7.1", "8.4");
    assertThat(d.target()).hasValue(EngineVersion.parse("8.4"));
    assertThat(d.refusal().get().message()).contains("Still running 8.4");
  }

  @Test
  void minorAndPatchChangesRollOut() {
    assertThat(decide(POSTGRES, "16.4", "16.2").target()).hasValue(EngineVersion.parse("16.4"));
    assertThat(decide(POSTGRES, "16.4", "16").refusal()).isEmpty();
    assertThat(decide(MYSQL, "8.4.3", "8.4").refusal()).isEmpty();
  }

  @Test
  void downgradesAreRefusedOnEveryEngine() {
    for (var c :
        new Object[][] {
          {POSTGRES, "16.2", "16.4"}, {MYSQL, "8.0", "8.4"}, {MARIADB, "10.11", "11.4"}
        }) {
      VersionDecision d = decide((EngineProfile) c[0], (String) c[1], (String) c[2]);
      assertThat(d.refusal().get().reason()).isEqualTo(Reason.DOWNGRADE_REFUSED);
      assertThat(d.target()).hasValue(EngineVersion.parse((String) c[2]));
      assertThat(d.refusal().get().message()).contains("Set spec.version to " + c[2]);
    }
  }

  @Test
  void postgresMajorUpgradesGoAheadByDumpUpToSeventeenAndMySqlAndMariaDbInPlace() {
    VersionDecision pg = decide(POSTGRES, "17", "15");
    assertThat(pg.refusal()).isEmpty();
    assertThat(pg.target()).hasValue(EngineVersion.parse("17"));
    assertThat(pg.upgradedFrom()).hasValue(EngineVersion.parse("15"));
    VersionDecision three =
        VersionDecision.decide(POSTGRES, "17", Optional.of("15"), Optional.empty(), 3);
    assertThat(three.refusal().get().reason()).isEqualTo(Reason.MAJOR_UPGRADE_UNSUPPORTED);
    assertThat(three.refusal().get().message()).contains("spec.replicas to 1");
    assertThat(three.target()).hasValue(EngineVersion.parse("15"));
    VersionDecision to18 = decide(POSTGRES, "18", "16.4");
    assertThat(to18.refusal().get().reason()).isEqualTo(Reason.MAJOR_UPGRADE_UNSUPPORTED);
    assertThat(to18.target()).hasValue(EngineVersion.parse("16.4"));
    assertThat(to18.refusal().get().message()).contains("a 16 version");
    assertThat(decide(MYSQL, "9", "8.4").target()).hasValue(EngineVersion.parse("9"));
    assertThat(decide(MYSQL, "9", "8.4").upgradedFrom()).isEmpty();
    assertThat(decide(MARIADB, "11.8", "11.4").refusal()).isEmpty();
  }

  @Test
  void anUpgradedPostgresKeepsItsRecordRollsBackToTheOldMajorAndRefusesASecondUpgrade() {
    Optional<String> from15 = Optional.of("15");
    VersionDecision same = VersionDecision.decide(POSTGRES, "17.2", Optional.of("17"), from15, 1);
    assertThat(same.target()).hasValue(EngineVersion.parse("17.2"));
    assertThat(same.upgradedFrom()).hasValue(EngineVersion.parse("15"));
    VersionDecision back = VersionDecision.decide(POSTGRES, "15", Optional.of("17"), from15, 3);
    assertThat(back.refusal()).isEmpty();
    assertThat(back.target()).hasValue(EngineVersion.parse("15"));
    assertThat(back.upgradedFrom()).as("the old data directory again").isEmpty();
    VersionDecision older = VersionDecision.decide(POSTGRES, "14", Optional.of("17"), from15, 1);
    assertThat(older.refusal().get().reason()).isEqualTo(Reason.DOWNGRADE_REFUSED);
    assertThat(older.upgradedFrom()).hasValue(EngineVersion.parse("15"));
    VersionDecision second =
        VersionDecision.decide(POSTGRES, "16", Optional.of("15"), Optional.of("14"), 1);
    assertThat(second.refusal().get().reason()).isEqualTo(Reason.MAJOR_UPGRADE_UNSUPPORTED);
    assertThat(second.refusal().get().message()).contains("second major upgrade");
    assertThat(second.target()).hasValue(EngineVersion.parse("15"));
  }
}
