package dev.cellar.operator.engine;

import dev.cellar.api.names.Conditions.Reason;
import java.util.Optional;

/**
 * Which version to run, given what the spec asks and what already runs (recorded on the
 * StatefulSet, so the rule survives an operator restart or a lost status). A refused change keeps
 * the running version and says why.
 *
 * @param target the version to roll out; empty when nothing runs and the spec cannot be run
 * @param refusal why the spec's version is not rolled out, if it is not
 * @param upgradedFrom for a major upgrade by dump and restore (PostgreSQL), the version whose data
 *     directory is the source: from the moment the new major is decided on until the Database is
 *     recreated (the StatefulSet records it, so the pods keep finding the new data directory)
 */
public record VersionDecision(
    Optional<EngineVersion> target,
    Optional<Refusal> refusal,
    Optional<EngineVersion> upgradedFrom) {

  public VersionDecision(Optional<EngineVersion> target, Optional<Refusal> refusal) {
    this(target, refusal, Optional.empty());
  }

  /** A refused version: a condition reason and a message that says what is allowed. */
  public record Refusal(Reason reason, String message) {}

  public static VersionDecision decide(
      EngineProfile profile, String wantedText, Optional<String> runningText) {
    return decide(profile, wantedText, runningText, Optional.empty(), 1);
  }

  /**
   * As {@link #decide(EngineProfile, String, Optional)}, for a StatefulSet that records a major
   * upgrade from {@code upgradedFromText}: going back to that major is a rollback onto its
   * untouched data directory, not a downgrade; any other version keeps the record. A major upgrade
   * by dump needs a single pod ({@code replicas}): replicas roll first and cannot clone an older
   * primary into the new major's directory.
   */
  public static VersionDecision decide(
      EngineProfile profile,
      String wantedText,
      Optional<String> runningText,
      Optional<String> upgradedFromText,
      int replicas) {
    VersionDecision d = decideVersion(profile, wantedText, runningText, upgradedFromText, replicas);
    if (d.upgradedFrom().isPresent() || upgradedFromText.isEmpty()) {
      return d;
    }
    Optional<EngineVersion> from = upgradedFromText.flatMap(VersionDecision::tryParse);
    boolean rolledBack =
        d.target().isPresent()
            && from.isPresent()
            && !profile.isMajorChange(from.get(), d.target().get());
    return rolledBack ? d : new VersionDecision(d.target(), d.refusal(), from);
  }

  private static VersionDecision decideVersion(
      EngineProfile profile,
      String wantedText,
      Optional<String> runningText,
      Optional<String> upgradedFromText,
      int replicas) {
    Optional<EngineVersion> running = runningText.flatMap(VersionDecision::tryParse);
    EngineVersion wanted = EngineVersion.parse(wantedText);
    String engine = profile.engine().value();
    Optional<EngineVersion> from = upgradedFromText.flatMap(VersionDecision::tryParse);
    if (running.isPresent()
        && from.isPresent()
        && profile.isMajorChange(from.get(), running.get())
        && !profile.isMajorChange(from.get(), wanted)) {
      // Back to the major the upgrade started from: its data directory was kept as it was.
      return new VersionDecision(Optional.of(wanted), Optional.empty());
    }
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
    if (profile.isMajorChange(current, wanted) && from.isPresent()) {
      return refuse(
          running,
          Reason.MAJOR_UPGRADE_UNSUPPORTED,
          engine
              + " was upgraded from "
              + from.get()
              + " to "
              + current
              + "; a second major upgrade of the same Database is not automated yet. Set"
              + " spec.version back to a "
              + profile.seriesOf(current).orElse(current.toString())
              + " version, or dump and restore into a new Database.");
    }
    if (profile.isMajorChange(current, wanted)
        && profile.upgradesMajorByDump(current, wanted)
        && replicas > 1) {
      return refuse(
          running,
          Reason.MAJOR_UPGRADE_UNSUPPORTED,
          engine
              + " "
              + current
              + " -> "
              + wanted
              + " is upgraded by dump and restore with a single pod: set spec.replicas to 1 for"
              + " the upgrade and back afterwards (the replicas then clone the new primary).");
    }
    if (profile.isMajorChange(current, wanted) && profile.upgradesMajorByDump(current, wanted)) {
      return new VersionDecision(Optional.of(wanted), Optional.empty(), Optional.of(current));
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
              + " changes the major version, which Cellar upgrades by dump and restore only"
              + " between majors that keep the same data volume layout (13 to 17). Set"
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
