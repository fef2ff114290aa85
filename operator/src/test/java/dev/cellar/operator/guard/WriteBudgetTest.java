package dev.cellar.operator.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cellar.api.names.Conditions.Reason;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.runtime.ErrorMessages;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.OperatorException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteBudgetTest {
  @AfterEach
  void reset() {
    WriteBudget.reset();
  }

  static Database db(String uid) {
    Database db = new Database("shop", "orders", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    db.getMetadata().setUid(uid);
    return db;
  }

  @Test
  void aChildWrittenTooOftenIsRefusedAndReportedAsAWriteLoop() {
    Database db = db("u1");
    for (int i = 0; i < WriteBudget.LIMIT; i++) {
      WriteBudget.spend(db, "StatefulSet orders");
    }
    // Other children and other Databases keep their own budgets.
    WriteBudget.spend(db, "Service orders");
    WriteBudget.spend(db("u2"), "StatefulSet orders");
    assertThatThrownBy(() -> WriteBudget.spend(db, "StatefulSet orders"))
        .isInstanceOf(WriteBudget.WriteLoop.class)
        .hasMessageContaining("StatefulSet orders was written 8 times within 300 s")
        .hasMessageContaining("kubectl get db orders -o yaml");
    try {
      WriteBudget.spend(db, "StatefulSet orders");
    } catch (WriteBudget.WriteLoop loop) {
      var failure =
          ErrorMessages.failure(
              new OperatorException(
                  new AggregatedOperatorException("workflow", Map.of("statefulset", loop))));
      assertThat(failure.reason()).isEqualTo(Reason.WRITE_LOOP);
      assertThat(failure.message()).startsWith("statefulset: StatefulSet orders was written");
    }
  }

  @Test
  void writesOlderThanTheWindowNoLongerCountAndTheirDatabasesAreForgotten() {
    long start = WriteBudget.now();
    long window = WriteBudget.WINDOW.toMillis();
    Database db = db("u1");
    for (int i = 0; i < WriteBudget.LIMIT; i++) {
      WriteBudget.spend(db, "StatefulSet orders", start + i);
    }
    assertThatThrownBy(() -> WriteBudget.spend(db, "StatefulSet orders", start + window - 1))
        .isInstanceOf(WriteBudget.WriteLoop.class);

    // The first write leaves the window: one more is allowed, and then none.
    WriteBudget.spend(db, "StatefulSet orders", start + window);
    assertThatThrownBy(() -> WriteBudget.spend(db, "StatefulSet orders", start + window))
        .isInstanceOf(WriteBudget.WriteLoop.class)
        .hasMessageContaining("written 8 times");

    // A window after the last write, another Database's write forgets this one altogether.
    WriteBudget.spend(db("u2"), "Service orders", start + window);
    assertThat(WriteBudget.remembered()).isEqualTo(2);
    WriteBudget.spend(db("u2"), "Service orders", start + 2 * window + 1);
    assertThat(WriteBudget.remembered()).isEqualTo(1);
    for (int i = 0; i < WriteBudget.LIMIT; i++) {
      WriteBudget.spend(db, "StatefulSet orders", start + 2 * window + 2);
    }
  }
}
