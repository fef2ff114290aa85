package dev.cellar.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MemoTest {
  @Test
  void computesEachKeyOnceAndStartsAfreshPastItsLimit() {
    Memo<String, Integer> memo = new Memo<>(2);
    AtomicInteger computed = new AtomicInteger();
    assertThat(memo.get("a", computed::incrementAndGet)).isEqualTo(1);
    assertThat(memo.get("a", computed::incrementAndGet)).isEqualTo(1);
    assertThat(memo.get("b", computed::incrementAndGet)).isEqualTo(2);
    assertThat(computed).hasValue(2);
    // A third key clears the two remembered ones: "a" is computed again.
    assertThat(memo.get("c", computed::incrementAndGet)).isEqualTo(3);
    assertThat(memo.get("a", computed::incrementAndGet)).isEqualTo(4);
  }
}
