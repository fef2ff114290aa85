package dev.cellar.operator.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import dev.cellar.api.v1.Engine;
import dev.cellar.operator.topology.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailoverTest {
  static Pod pod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .build();
  }

  @Test
  void theStandbysAreThePodsButThePrimarysSaveOnesNeverScheduled() {
    DatabaseSpec spec = new DatabaseSpec(Engine.POSTGRESQL, "16", "1Gi");
    spec.setReplicas(4);
    Database db = new Database(null, "db", spec);
    db.getMetadata().setNamespace("ns");
    // db-1 runs; db-2 is missing (recreated in a moment, on its volume); db-3 was never placed.
    List<Pod> pods = List.of(pod("db-0", "n1"), pod("db-1", "n2"), pod("db-3", null));
    assertThat(Failover.standbys(Topology.of(db), pods, "db-0")).containsExactly("db-1", "db-2");
  }
}
