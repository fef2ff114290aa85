package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.api.v1.FromBackupSpec.BackupSource;
import dev.cellar.api.v1.ObjectStoreSpec;
import org.junit.jupiter.api.Test;

class RestoresTest {
  static Restores.Request to(String name) {
    return new Restores.Request(name, null, null, null, null, null, null);
  }

  static Database source() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "5Gi");
    spec.setReplicas(3);
    spec.setStorageClassName("fast");
    return new Database("shop", "orders", spec);
  }

  @Test
  void theNewDatabaseIsShapedLikeTheSourceAndRestoresItsLatestDumpFromItsVolume() throws Exception {
    Database db = Restores.newDatabase("shop", "orders", source(), to("orders-copy"));
    assertThat(db.getMetadata().getName()).isEqualTo("orders-copy");
    assertThat(db.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(db.getSpec().getEngine()).isEqualTo(Engine.POSTGRESQL);
    assertThat(db.getSpec().getVersion()).isEqualTo("16");
    assertThat(db.getSpec().getStorage()).isEqualTo("5Gi");
    assertThat(db.getSpec().getStorageClassName()).isEqualTo("fast");
    assertThat(db.getSpec().getReplicas()).isEqualTo(3);
    var from = db.getSpec().getBootstrap().getFromBackup();
    assertThat(from.getDatabase()).isEqualTo("orders");
    assertThat(from.getSource()).isEqualTo(BackupSource.VOLUME);
    assertThat(from.getBackup()).isEqualTo("latest");
    assertThat(from.getObjectStore()).isNull();
  }

  @Test
  void aSourceWithABucketIsRestoredFromTheBucketUnlessTheVolumeIsAskedFor() throws Exception {
    Database source = source();
    ObjectStoreSpec bucket = new ObjectStoreSpec();
    bucket.setBucket("b");
    bucket.setEndpoint("https://s3.example");
    bucket.setCredentialsSecret("keys");
    source.getSpec().getBackup().setObjectStore(bucket);
    var from =
        Restores.newDatabase(
                "shop",
                "orders",
                source,
                new Restores.Request(
                    "copy", "orders-20260101T020000Z.sql.gz", null, null, null, null, null))
            .getSpec()
            .getBootstrap()
            .getFromBackup();
    assertThat(from.getSource()).isEqualTo(BackupSource.OBJECT_STORE);
    assertThat(from.getObjectStore()).isEqualTo(bucket);
    assertThat(from.getBackup()).isEqualTo("orders-20260101T020000Z.sql.gz");
    Database copy =
        Restores.newDatabase(
            "shop",
            "orders",
            source,
            new Restores.Request("copy", null, "volume", null, null, null, null));
    assertThat(copy.getSpec().getBootstrap().getFromBackup().getSource())
        .isEqualTo(BackupSource.VOLUME);
    // The new Database does not back up into the source's bucket.
    assertThat(copy.getSpec().getBackup().getObjectStore()).isNull();
  }

  @Test
  void aSourceThatIsGoneNeedsEngineVersionAndSize() throws Exception {
    assertThatThrownBy(() -> Restores.newDatabase("shop", "gone", null, to("back")))
        .hasMessageContaining("give --engine, --version and --storage");
    Database db =
        Restores.newDatabase(
            "shop",
            "gone",
            null,
            new Restores.Request("back", null, null, "mariadb", "11.4", "2Gi", null));
    assertThat(db.getSpec().getEngine()).isEqualTo(Engine.MARIADB);
    assertThat(db.getSpec().getBootstrap().getFromBackup().getSource())
        .isEqualTo(BackupSource.VOLUME);
    assertThatThrownBy(
            () ->
                Restores.newDatabase(
                    "shop",
                    "gone",
                    null,
                    new Restores.Request("back", null, "objectStore", "mysql", "8.4", "1Gi", null)))
        .hasMessageContaining("needs the bucket");
  }

  @Test
  void badRequestsAreRefusedBeforeTheApiServerSeesThem() {
    assertThatThrownBy(() -> Restores.newDatabase("shop", "orders", source(), to("Bad_Name")))
        .hasMessageContaining("is not a Database name");
    assertThatThrownBy(() -> Restores.newDatabase("shop", "orders", source(), to("orders")))
        .hasMessageContaining("must name a new Database");
    assertThatThrownBy(
            () ->
                Restores.newDatabase(
                    "shop",
                    "orders",
                    source(),
                    new Restores.Request("copy", "yesterday", null, null, null, null, null)))
        .hasMessageContaining("--backup must be latest or a dump's name");
    assertThatThrownBy(
            () ->
                Restores.newDatabase(
                    "shop",
                    "orders",
                    source(),
                    new Restores.Request("copy", null, null, "mysql", null, null, null)))
        .hasMessageContaining("restores only into postgresql");
    assertThatThrownBy(
            () ->
                Restores.newDatabase(
                    "shop",
                    "orders",
                    source(),
                    new Restores.Request("copy", null, "tape", null, null, null, null)))
        .hasMessageContaining("--source must be volume or objectStore");
  }
}
