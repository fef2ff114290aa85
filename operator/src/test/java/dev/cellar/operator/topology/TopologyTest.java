package dev.cellar.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import org.junit.jupiter.api.Test;

class TopologyTest {
  @Test
  void aClaimNamesTheDatabasesItCanBelongTo() {
    Database db = new Database(null, "orders-2", new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi"));
    Topology topology = Topology.of(db);
    assertThat(ChildNames.databasesOfClaim(topology.dataClaim(3))).containsExactly("orders-2");
    assertThat(ChildNames.databasesOfClaim(topology.backupClaim())).containsExactly("orders-2");
    // "data-x-backups" reads both ways only when it ends in an ordinal; this one does not.
    assertThat(ChildNames.databasesOfClaim("data-a-backups")).containsExactly("data-a");
    assertThat(ChildNames.databasesOfClaim("data-a-1-backups")).containsExactly("data-a-1");
    assertThat(ChildNames.databasesOfClaim("scratch")).isEmpty();
    assertThat(ChildNames.databasesOfClaim("-backups")).isEmpty();
  }
}
