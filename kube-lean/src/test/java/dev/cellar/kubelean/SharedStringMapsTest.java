package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SharedStringMapsTest {
  static Map<String, String> labels(String instance) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("app.kubernetes.io/component", "database");
    map.put("app.kubernetes.io/instance", instance);
    map.put("app.kubernetes.io/managed-by", "cellar-operator");
    return map;
  }

  @Test
  void equalMapsComeBackAsOneInstanceAndOthersAsThemselves() {
    var table = new LossyTable<Map<String, String>>(64);
    Map<String, String> orders = SharedStringMaps.shared(table, labels("orders"));
    assertThat(SharedStringMaps.shared(table, labels("orders"))).isSameAs(orders);
    Map<String, String> billing = SharedStringMaps.shared(table, labels("billing"));
    assertThat(billing).isNotSameAs(orders).isEqualTo(labels("billing"));
    assertThat(SharedStringMaps.shared(table, labels("billing"))).isSameAs(billing);
  }

  @Test
  void aFullTableStillAnswersEqualMaps() {
    // Far more distinct maps than slots: each answer equals its input, whatever was evicted.
    var table = new LossyTable<Map<String, String>>(4);
    for (int i = 0; i < 5_000; i++) {
      Map<String, String> map = labels("db-" + (i % 97));
      assertThat(SharedStringMaps.shared(table, map)).isEqualTo(map);
    }
  }

  @Test
  void anEqualMapInAnotherOrderIsTheSameMap() {
    var table = new LossyTable<Map<String, String>>(64);
    Map<String, String> reversed = new LinkedHashMap<>();
    labels("orders").entrySet().stream()
        .sorted(Map.Entry.<String, String>comparingByKey().reversed())
        .forEach(e -> reversed.put(e.getKey(), e.getValue()));
    Map<String, String> shared = SharedStringMaps.shared(table, labels("orders"));
    assertThat(SharedStringMaps.shared(table, reversed)).isSameAs(shared);
  }

  @Test
  void largeMapsAreNotShared() {
    var table = new LossyTable<Map<String, String>>(64);
    Map<String, String> large =
        IntStream.rangeClosed(0, SharedStringMaps.MAX_ENTRIES)
            .boxed()
            .collect(Collectors.toMap(i -> "key-" + i, i -> "value"));
    assertThat(SharedStringMaps.shared(table, large)).isSameAs(large);
    assertThat(SharedStringMaps.shared(table, Map.copyOf(large))).isNotSameAs(large);
  }
}
