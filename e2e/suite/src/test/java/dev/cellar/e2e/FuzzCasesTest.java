package dev.cellar.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.v1.ComputeResources;
import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.DatabaseSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The fuzzer's generators agree with the CRD's patterns and bounds without a cluster, so that a
 * refusal in {@link DatabaseFuzzIT} points at a CEL rule, not at a careless generator.
 */
class FuzzCasesTest {
  @Provide
  Arbitrary<Map<String, Object>> specs() {
    return FuzzCases.specs();
  }

  @Property(tries = 300)
  @SuppressWarnings("unchecked")
  void specsMatchTheCrdsPatternsAndBounds(@ForAll("specs") Map<String, Object> spec) {
    assertThat((String) spec.get("version"))
        .matches(DatabaseSpec.VERSION_PATTERN)
        .doesNotContainPattern("[0-9]{10,}");
    assertSize((String) spec.get("storage"));
    if (spec.get("image") != null) {
      assertThat((String) spec.get("image")).matches(DatabaseSpec.IMAGE_PATTERN);
    }
    if (spec.get("storageClassName") != null) {
      assertThat((String) spec.get("storageClassName")).matches(DatabaseSpec.STORAGE_CLASS_PATTERN);
    }
    if (spec.get("replicas") != null) {
      assertThat((Integer) spec.get("replicas")).isBetween(1, DatabaseSpec.MAX_REPLICAS);
    }
    Map<String, Object> backup = (Map<String, Object>) spec.get("backup");
    if (backup != null) {
      if (backup.get("storage") != null) {
        assertSize((String) backup.get("storage"));
      }
      if (backup.get("schedule") != null) {
        String schedule = (String) backup.get("schedule");
        assertThat(schedule)
            .hasSizeLessThanOrEqualTo(128)
            .matches(
                "^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\\S+\\s+){4}\\S+)$");
        assertThat(schedule.startsWith("@") || FuzzCases.fires(schedule)).isTrue();
      }
      if (backup.get("retention") != null) {
        assertThat((Integer) backup.get("retention")).isBetween(1, 365);
      }
    }
    Map<String, Map<String, Object>> resources =
        (Map<String, Map<String, Object>>) spec.get("resources");
    if (resources != null) {
      for (Map<String, Object> values : resources.values()) {
        values
            .values()
            .forEach(v -> assertThat(String.valueOf(v)).matches(ComputeResources.QUANTITY_PATTERN));
      }
      Map<String, Object> requests = resources.get("requests");
      Map<String, Object> limits = resources.get("limits");
      if (requests != null && limits != null) {
        for (String r : new String[] {"cpu", "memory"}) {
          if (requests.get(r) != null && limits.get(r) != null) {
            assertThat(amount(requests.get(r))).isLessThanOrEqualTo(amount(limits.get(r)));
          }
        }
      }
    }
  }

  static void assertSize(String size) {
    assertThat(size).matches(DatabaseSpec.SIZE_PATTERN).hasSizeLessThanOrEqualTo(32);
    assertThat(amount(size)).isPositive().isLessThanOrEqualTo(amount(DatabaseSpec.MAX_SIZE));
  }

  static java.math.BigDecimal amount(Object quantity) {
    return new Quantity(String.valueOf(quantity)).getNumericalAmount();
  }

  @Property(tries = 500)
  void namesAreAdmittedAndNoneIsAnothersPrefix(
      @ForAll @IntRange(min = 0, max = 99999) int i,
      @ForAll @IntRange(min = 0, max = 99999) int j,
      @ForAll @IntRange(min = 1, max = FuzzCases.MAX_NAME) int length) {
    String letters = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghij";
    String a = FuzzCases.name(i, length, letters);
    String b = FuzzCases.name(j, FuzzCases.MAX_NAME, letters);
    assertThat(a).hasSizeLessThanOrEqualTo(Database.MAX_NAME_LENGTH).matches(Database.NAME_PATTERN);
    assertThat(b).hasSize(Database.MAX_NAME_LENGTH);
    if (i != j) {
      assertThat(FuzzCases.belongsTo(b, a)).isFalse();
      assertThat(FuzzCases.belongsTo("data-" + b + "-0", a)).isFalse();
      assertThat(FuzzCases.belongsTo(a + "-backup", b)).isFalse();
    }
  }

  @Example
  void theVersionModelFollowsTheDesign() {
    assertThat(FuzzCases.supported("postgresql", "016")).isTrue();
    assertThat(FuzzCases.supported("postgresql", "16.4.1")).isTrue();
    assertThat(FuzzCases.supported("postgresql", "10.11")).isFalse();
    assertThat(FuzzCases.supported("mysql", "8")).isFalse();
    assertThat(FuzzCases.supported("mysql", "9.1")).isTrue();
    assertThat(FuzzCases.supported("mariadb", "10.11")).isTrue();
    assertThat(FuzzCases.supported("mariadb", "10.011")).isTrue();
    assertThat(FuzzCases.supported("mariadb", "11")).isFalse();
  }
}
