package dev.cellar.operator.status;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.api.v1.Database;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StatusWriterTest {
  private static Database at(String resourceVersion) {
    Database db = new Database();
    db.getMetadata().setName("db");
    db.getMetadata().setNamespace("ns");
    db.getMetadata().setResourceVersion(resourceVersion);
    return db;
  }

  @Test
  void aWrittenStatusIsRememberedOnlyWhileTheCacheHasNotSeenIt() {
    Database written = at("1200");
    assertTrue(StatusWriter.informerBehind(Optional.empty(), written), "nothing cached");
    assertTrue(StatusWriter.informerBehind(Optional.of(at("1199")), written), "an older one");
    // The informer delivered the write before the patch's response came back: remembering it
    // would keep a whole Database in JOSDK's cache until the Database next changes.
    assertFalse(StatusWriter.informerBehind(Optional.of(at("1200")), written), "this very one");
    assertFalse(StatusWriter.informerBehind(Optional.of(at("1201")), written), "a newer one");
  }
}
