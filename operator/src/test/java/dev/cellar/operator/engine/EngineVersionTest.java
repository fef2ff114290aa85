package dev.cellar.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EngineVersionTest {
  static EngineVersion v(String text) {
    return EngineVersion.parse(text);
  }

  @Test
  void parsesOneToThreeComponents() {
    assertThat(v("16").parts()).containsExactly(16);
    assertThat(v("8.0.36").parts()).containsExactly(8, 0, 36);
    assertThat(v("10.11").toString()).isEqualTo("10.11");
    assertThatThrownBy(() -> v("16.x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> v("1.2.3.4")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void seriesMembership() {
    assertThat(v("8.4.2").isIn(v("8.4"))).isTrue();
    assertThat(v("8.4").isIn(v("8.4"))).isTrue();
    assertThat(v("8.4").isIn(v("8.0"))).isFalse();
    assertThat(v("8").isIn(v("8.4"))).as("8 alone is ambiguous").isFalse();
    assertThat(v("10.11.6").isIn(v("10.1"))).isFalse();
  }

  @Test
  void comparesOnlyTheComponentsBothName() {
    assertThat(v("16.4")).isGreaterThan(v("16.2"));
    assertThat(v("16")).isEqualByComparingTo(v("16.4"));
    assertThat(v("10.11")).isGreaterThan(v("10.6"));
    assertThat(v("11.4")).isGreaterThan(v("10.11"));
    assertThat(v("8.0.36")).isLessThan(v("8.4"));
  }
}
