package dev.cellar.operator.engine;

import dev.cellar.operator.status.Conditions.Reason;
import java.util.Optional;

/**
 * Which version to run, given what the spec asks and what already runs (recorded on the
 * StatefulSet, so the rule survives an operator restart or a lost status). A refused change keeps
 * the running version and says why.
 *
 * @param target the version to roll out; empty when nothing runs and the spec cannot be run
 * @param refusal why the spec's version is not rolled out, if it is not
 */
public record VersionDecision(Optional<EngineVersion> target, Optional<Refusal> refusal) {

  /** A refused version: a condition reason and a message that says what is allowed. */
  public record Refusal(Reason reason, String message) {}

  public static VersionDecision decide(
      EngineProfile profile, String wantedText, Optional<String> runningText) {
    Optional<EngineVersion> running = runningText.flatMap(VersionDecision::tryParse);
    EngineVersion wanted = EngineVersion.parse(wantedText);
    String engine = profile.engine().value();
    if (profile.seriesOf(wanted).isEmpty()) {
      return refuse(
          running,
          Reason.UNSUPPORTED_VERSION,
          engine
              + " "
              + wanted
              + " is not supported; supported versions: "
              + String.join(", ", profile.supportedSeries())
              + running.map(r -> ". Still running " + r).orElse(""));
    }
    if (running.isEmpty()) {
      return new VersionDecision(Optional.of(wanted), Optional.empty());
    }
    EngineVersion current = running.get();
    if (wanted.compareTo(current) < 0) {
      return refuse(
          running,
          Reason.DOWNGRADE_REFUSED,
          engine
              + " runs "
              + current
              + "; "
              + wanted
              + " would be a downgrade, which the data files of a newer server do not allow."
              + " Set spec.version to "
              + current
              + " or newer.");
    }
    if (profile.isMajorChange(current, wanted) && !profile.upgradesMajorInPlace()) {
      return refuse(
          running,
          Reason.MAJOR_UPGRADE_UNSUPPORTED,
          engine
              + " "
              + current
              + " -> "
              + wanted
              + " changes the major version, which needs pg_upgrade and is not automated. Set"
              + " spec.version back to a "
              + profile.seriesOf(current).orElse(current.toString())
              + " version, or dump and restore into a new Database.");
    }
    return new VersionDecision(Optional.of(wanted), Optional.empty());
  }

  private static VersionDecision refuse(
      Optional<EngineVersion> running, Reason reason, String message) {
    return new VersionDecision(running, Optional.of(new Refusal(reason, message)));
  }

  private static Optional<EngineVersion> tryParse(String text) {
    try {
      return Optional.of(EngineVersion.parse(text));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
