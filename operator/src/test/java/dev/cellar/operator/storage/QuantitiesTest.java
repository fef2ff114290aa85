package dev.cellar.operator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuantitiesTest {
  @Test
  void quantitiesAreCanonical() {
    assertThat(Quantities.canonical("1024Mi")).isEqualTo("1Gi");
    assertThat(Quantities.canonical("2048Gi")).isEqualTo("2Ti");
    assertThat(Quantities.canonical("1536Mi")).isEqualTo("1536Mi");
    assertThat(Quantities.canonical("100Gi")).isEqualTo("100Gi");
  }
}
