package dev.cellar.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.names.Conditions.Type;
import dev.cellar.api.v1.BackupRecord;
import dev.cellar.api.v1.BootstrapSpec;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.DatabaseStatus;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FromBackupSpec;
import dev.cellar.api.v1.FromBackupSpec.BackupSource;
import dev.cellar.api.v1.ObjectStoreSpec;
import dev.cellar.api.v1.Phase;
import dev.cellar.operator.backup.RestoreSource.Outcome;
import dev.cellar.operator.backup.S3Listing.Answer;
import dev.cellar.operator.backup.S3Listing.Kind;
import dev.cellar.operator.events.EventRecorder;
import dev.cellar.operator.facts.Failure;
import dev.cellar.operator.status.ConditionSet;
import dev.cellar.operator.status.Observed;
import dev.cellar.operator.status.StatusEvents;
import dev.cellar.operator.status.StatusFactory;
import dev.cellar.operator.storage.StorageResize;
import dev.cellar.operator.tls.TlsState;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Whether a restore's source is there, and what the status says when it is not: pure logic. */
class RestoreSourceTest {
  static final String STORE = "http://s3.local:9000";

  static Database restoring(FromBackupSpec from) {
    Database db = new Database("shop", "copy", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    db.getSpec().setBootstrap(new BootstrapSpec(from));
    db.getMetadata().setGeneration(1L);
    return db;
  }

  static FromBackupSpec fromVolume(String source) {
    return new FromBackupSpec(source, BackupSource.VOLUME, "latest", null);
  }

  static FromBackupSpec fromBucket(String source, String backup) {
    return new FromBackupSpec(
        source,
        BackupSource.OBJECT_STORE,
        backup,
        new ObjectStoreSpec(STORE, "dumps", "prod/orders/", "us-east-1", "s3-keys"));
  }

  static Database source(boolean backedUp) {
    Database source =
        new Database("shop", "orders", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    if (backedUp) {
      source.setStatus(new DatabaseStatus());
      source
          .getStatus()
          .setLastBackup(
              new BackupRecord(
                  "orders-20260101T020000Z.sql.gz",
                  "pvc://orders-backups/orders-20260101T020000Z.sql.gz",
                  null,
                  "2026-01-01T02:00:09Z",
                  1024L,
                  "scheduled",
                  "orders-backup-1"));
    }
    return source;
  }

  static Answer listed(String... keys) {
    return new Answer(Kind.LISTED, List.of(keys), false, "");
  }

  static String message(Outcome outcome) {
    return outcome.holdsBack().orElseThrow().message();
  }

  // Source volume.

  @Test
  void aVolumeSourceWithoutItsClaimIsMissingNamingTheDatabaseTheClaimAndWhatToDo() {
    Database db = restoring(fromVolume("missing"));
    Outcome outcome = RestoreSource.volume(db, fromVolume("missing"), false, Optional.empty());
    assertThat(outcome.allowsPods()).isFalse();
    assertThat(outcome.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_SOURCE_MISSING);
    assertThat(message(outcome))
        .isEqualTo(
            "bootstrap.fromBackup: Database missing has no backups volume in namespace shop (no"
                + " PVC missing-backups, where source volume reads its dumps). Create Database"
                + " missing with backups on a volume and take a backup (kubectl cellar backup"
                + " missing), or restore from a bucket (source: objectStore). No pod is created"
                + " until the dump is found; Cellar looks again every 30 s");
    assertThat(outcome.recheck()).contains(RestoreSource.RECHECK);
    // The Database is there, with backups off or to a bucket.
    assertThat(
            message(
                RestoreSource.volume(
                    restoring(fromVolume("orders")),
                    fromVolume("orders"),
                    false,
                    Optional.of(source(false)))))
        .startsWith(
            "bootstrap.fromBackup: Database orders keeps no backups on a volume (no PVC"
                + " orders-backups, where source volume reads its dumps). Turn its backups on");
  }

  @Test
  void aVolumeWhoseDatabaseHasTakenNoBackupIsMissingUntilItHas() {
    Database db = restoring(fromVolume("orders"));
    Outcome none = RestoreSource.volume(db, fromVolume("orders"), true, Optional.of(source(false)));
    assertThat(none.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_SOURCE_MISSING);
    assertThat(message(none))
        .startsWith(
            "bootstrap.fromBackup: Database orders has taken no backup yet (its status names"
                + " none), so PVC orders-backups holds no dump of it. Take one (kubectl cellar"
                + " backup orders)");
    assertThat(
            RestoreSource.volume(db, fromVolume("orders"), true, Optional.of(source(true)))
                .allowsPods())
        .isTrue();
  }

  @Test
  void aVolumeWithoutItsDatabaseOrWhoseDatabaseBacksUpElsewhereCannotBeToldEmpty() {
    Database db = restoring(fromVolume("orders"));
    // A claim kept after its Database was deleted: its files are not listed without a pod.
    assertThat(RestoreSource.volume(db, fromVolume("orders"), true, Optional.empty()).allowsPods())
        .isTrue();
    // Dumps go to a bucket now; the volume keeps those of before, which its status does not name.
    Database toBucket = source(false);
    toBucket
        .getSpec()
        .getBackup()
        .setObjectStore(new ObjectStoreSpec(STORE, "dumps", null, "us-east-1", "s3-keys"));
    assertThat(
            RestoreSource.volume(db, fromVolume("orders"), true, Optional.of(toBucket))
                .allowsPods())
        .isTrue();
  }

  // Source objectStore.

  @Test
  void noDumpOfTheSourceUnderThePrefixIsMissingNamingWhereCellarLooked() {
    FromBackupSpec from = fromBucket("orders", "latest");
    assertThat(RestoreSource.listed(from)).isEqualTo("orders-");
    // Another Database's dumps share the listing's prefix, and a file that is no dump.
    Outcome outcome =
        RestoreSource.bucket(
            restoring(from),
            from,
            listed(
                "prod/orders/orders-eu-20260101T020000Z.sql.gz",
                "prod/orders/orders-20260101T020000Z.sql.gz.partial"));
    assertThat(outcome.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_SOURCE_MISSING);
    assertThat(message(outcome))
        .isEqualTo(
            "bootstrap.fromBackup: no dump of Database orders in s3://dumps/prod/orders/ at"
                + " http://s3.local:9000 (its dumps are named orders-<UTC timestamp>.sql.gz)."
                + " Check fromBackup.database and objectStore (bucket, prefix) against the"
                + " source's spec.backup.objectStore, or take a backup of orders. No pod is"
                + " created until the dump is found; Cellar looks again every 30 s");
    assertThat(
            RestoreSource.bucket(
                    restoring(from), from, listed("prod/orders/orders-20260101T020000Z.sql.gz"))
                .allowsPods())
        .isTrue();
  }

  @Test
  void aNamedDumpThatIsNotThereIsMissingNamingIt() {
    FromBackupSpec from = fromBucket("orders", "orders-20260101T020000Z.sql.gz");
    assertThat(RestoreSource.listed(from)).isEqualTo("orders-20260101T020000Z.sql.gz");
    Outcome outcome = RestoreSource.bucket(restoring(from), from, listed());
    assertThat(outcome.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_SOURCE_MISSING);
    assertThat(message(outcome))
        .startsWith(
            "bootstrap.fromBackup: no dump orders-20260101T020000Z.sql.gz of Database orders in"
                + " s3://dumps/prod/orders/ at http://s3.local:9000. Name one that is there (the"
                + " source's status.lastBackup.name) or use backup: latest.");
    assertThat(
            RestoreSource.bucket(
                    restoring(from), from, listed("prod/orders/orders-20260101T020000Z.sql.gz"))
                .allowsPods())
        .isTrue();
  }

  @Test
  void aBucketThatDoesNotExistIsMissingAndRefusedKeysAreTheirOwnCause() {
    FromBackupSpec from = fromBucket("orders", "latest");
    Outcome noBucket =
        RestoreSource.bucket(
            restoring(from), from, Answer.not(Kind.NO_BUCKET, "HTTP 404 NoSuchBucket"));
    assertThat(noBucket.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_SOURCE_MISSING);
    assertThat(message(noBucket))
        .startsWith(
            "bootstrap.fromBackup: bucket dumps does not exist at http://s3.local:9000, so no dump"
                + " of Database orders is there.");

    Outcome refused =
        RestoreSource.bucket(
            restoring(from),
            from,
            Answer.not(Kind.REFUSED, "HTTP 403 SignatureDoesNotMatch: The request signature..."));
    assertThat(refused.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_FAILED);
    assertThat(message(refused))
        .startsWith(
            "bootstrap.fromBackup: the object store at http://s3.local:9000 refused the"
                + " credentials in Secret s3-keys (HTTP 403 SignatureDoesNotMatch: The request"
                + " signature...) when Cellar looked for the dumps of Database orders in"
                + " s3://dumps/prod/orders/; check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and"
                + " objectStore.region.");
  }

  @Test
  void whatTheOperatorCannotTellLetsThePodsTry() {
    FromBackupSpec from = fromBucket("orders", "latest");
    for (Answer answer :
        List.of(
            Answer.not(Kind.UNREACHABLE, "ConnectException"),
            Answer.not(Kind.UNEXPECTED, "HTTP 403 AccessDenied: Access Denied."),
            Answer.not(Kind.UNEXPECTED, "HTTP 503 SlowDown"),
            // More than 1,000 keys under the prefix: a dump may be among the others.
            new Answer(Kind.LISTED, List.of("prod/orders/orders-eu-1"), true, ""))) {
      assertThat(RestoreSource.bucket(restoring(from), from, answer).allowsPods())
          .as(answer.toString())
          .isTrue();
    }
  }

  @Test
  void aCredentialsSecretThatIsMissingOrLacksAKeyIsNamed() {
    FromBackupSpec from = fromBucket("orders", "latest");
    Database db = restoring(from);
    assertThat(message(RestoreSource.keysMissing(db, from, Optional.empty()).orElseThrow()))
        .startsWith(
            "bootstrap.fromBackup: Secret s3-keys (objectStore.credentialsSecret) does not exist"
                + " in namespace shop: create it with the keys AWS_ACCESS_KEY_ID and"
                + " AWS_SECRET_ACCESS_KEY of the bucket that holds the dumps of Database orders.");
    Outcome lacking =
        RestoreSource.keysMissing(db, from, Optional.of(Map.of("AWS_ACCESS_KEY_ID", "id")))
            .orElseThrow();
    assertThat(lacking.holdsBack().get().reason()).isEqualTo(Reason.RESTORE_FAILED);
    assertThat(message(lacking))
        .startsWith(
            "bootstrap.fromBackup: Secret s3-keys (objectStore.credentialsSecret) lacks"
                + " AWS_SECRET_ACCESS_KEY:");
    assertThat(
            RestoreSource.keysMissing(
                db,
                from,
                Optional.of(Map.of("AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "s"))))
        .isEmpty();
  }

  @Test
  void theListingReadsKeysTruncationAndErrorCodes() {
    Answer listing =
        S3Listing.answer(
            200,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>dumps</Name>"
                + "<Prefix>prod/orders/orders-</Prefix><KeyCount>2</KeyCount>"
                + "<IsTruncated>false</IsTruncated><Contents><Key>prod/orders/orders-1</Key>"
                + "<Size>5</Size></Contents><Contents><Key>prod/orders/a&amp;b</Key>"
                + "</Contents></ListBucketResult>");
    assertThat(listing.kind()).isEqualTo(Kind.LISTED);
    assertThat(listing.keys()).containsExactly("prod/orders/orders-1", "prod/orders/a&b");
    assertThat(listing.truncated()).isFalse();
    assertThat(S3Listing.answer(200, "<IsTruncated>true</IsTruncated>").truncated()).isTrue();
    assertThat(
            S3Listing.answer(
                404,
                "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not"
                    + " exist</Message><BucketName>dumps</BucketName></Error>"))
        .isEqualTo(
            Answer.not(
                Kind.NO_BUCKET, "HTTP 404 NoSuchBucket: The specified bucket does not exist"));
    assertThat(S3Listing.answer(403, "<Error><Code>InvalidAccessKeyId</Code></Error>").kind())
        .isEqualTo(Kind.REFUSED);
    assertThat(S3Listing.answer(403, "<Error><Code>AccessDenied</Code></Error>").kind())
        .isEqualTo(Kind.UNEXPECTED);
    assertThat(S3Listing.answer(502, "Bad Gateway"))
        .isEqualTo(Answer.not(Kind.UNEXPECTED, "HTTP 502"));
  }

  @Test
  void thePrefixIsTheScriptsOne() {
    assertThat(RestoreSource.keyPrefix(new ObjectStoreSpec(STORE, "b", null, null, "s"))).isEmpty();
    assertThat(RestoreSource.keyPrefix(new ObjectStoreSpec(STORE, "b", "prod/x", null, "s")))
        .isEqualTo("prod/x/");
    assertThat(RestoreSource.keyPrefix(new ObjectStoreSpec(STORE, "b", "prod/x//", null, "s")))
        .isEqualTo("prod/x/");
  }

  // The status and the Event.

  @Test
  void aRestoreHeldBackIsFailedWithItsReasonInReadyProgressingAndDegradedAndAWarningEvent() {
    Database db = restoring(fromVolume("missing"));
    Outcome outcome = RestoreSource.volume(db, fromVolume("missing"), false, Optional.empty());
    DatabaseStatus status =
        StatusFactory.compute(db, nothingYet(db, outcome.holdsBack()), Instant.now());
    assertThat(status.getPhase()).isEqualTo(Phase.Failed);
    for (Type type : List.of(Type.READY, Type.PROGRESSING)) {
      Condition c = ConditionSet.find(status.getConditions(), type).orElseThrow();
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("RestoreSourceMissing");
      assertThat(c.getMessage()).contains("Database missing");
    }
    Condition degraded = ConditionSet.find(status.getConditions(), Type.DEGRADED).orElseThrow();
    assertThat(degraded.getStatus()).isEqualTo("True");
    assertThat(degraded.getReason()).isEqualTo("RestoreSourceMissing");
    assertThat(degraded.getMessage()).isEqualTo(message(outcome));
    assertThat(StatusEvents.notes(db, null, status))
        .contains(
            new EventRecorder.Note(
                EventRecorder.WARNING, Reason.RESTORE_SOURCE_MISSING, message(outcome)));

    // Looked at again, with the source still missing: the same status, nothing to write.
    db.setStatus(status);
    assertThat(
            StatusFactory.compute(
                db, nothingYet(db, outcome.holdsBack()), Instant.now().plusSeconds(30)))
        .isEqualTo(status);
    // The source is there: the StatefulSet is being created, nothing is wrong.
    DatabaseStatus going =
        StatusFactory.compute(db, nothingYet(db, Optional.empty()), Instant.now());
    assertThat(going.getPhase()).isEqualTo(Phase.Provisioning);
    assertThat(ConditionSet.isTrue(going.getConditions(), Type.DEGRADED)).isFalse();
  }

  /** What a new Database's reconcile observes before its StatefulSet exists. */
  static Observed nothingYet(Database db, Optional<Failure> failure) {
    return new Observed(
        Optional.empty(),
        List.of(),
        Optional.empty(),
        Optional.empty(),
        List.of(),
        Topology.of(db).versionDecision(Optional.empty()),
        StorageResize.Outcome.NONE,
        failure,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Map.of(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        TlsState.NONE,
        Map.of());
  }
}
