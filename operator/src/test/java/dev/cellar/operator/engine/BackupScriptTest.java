package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The backup Jobs' script, run for real with a stand-in dump command. */
class BackupScriptTest {
  @TempDir Path dir;

  private Scripts.Result backup(String dumpCommand, int retention) {
    return Scripts.run(
        List.of("bash", "-c", EngineProfile.resource("backup.sh")),
        Map.of(
            "DUMP_COMMAND",
            dumpCommand,
            "BACKUP_DIR",
            dir.toString(),
            "BACKUP_NAME",
            "orders",
            "RETENTION",
            String.valueOf(retention)),
        Duration.ofSeconds(30));
  }

  private List<String> dumps() throws IOException {
    try (var files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void keepsTheNewestDumpsAndNeverCountsAFailedOne() throws IOException {
    // Older dumps of this Database and one of another whose name shares the prefix's start.
    for (String old : List.of("20260101T000000Z", "20260102T000000Z", "20260103T000000Z")) {
      Files.writeString(dir.resolve("orders-" + old + ".sql.gz"), "old");
    }
    Files.writeString(dir.resolve("ordersx-20260101T000000Z.sql.gz"), "other");

    Scripts.Result ok = backup("echo 'SELECT 1;'", 2).orFail("backup");
    assertThat(ok.output()).contains("backup written: " + dir + "/orders-");
    List<String> kept = dumps();
    assertThat(kept).hasSize(3).contains("orders-20260103T000000Z.sql.gz");
    assertThat(kept).contains("ordersx-20260101T000000Z.sql.gz");
    assertThat(kept).noneMatch(n -> n.endsWith(".partial"));

    // A dump that fails leaves no dump and removes nothing.
    Scripts.Result failed = backup("echo partial; exit 3", 1);
    assertThat(failed.exit()).isNotZero();
    assertThat(dumps()).filteredOn(n -> n.endsWith(".sql.gz")).hasSize(3);
  }
}
