package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the plugin finds a Database's objects. The names themselves are the api's (ChildNames, Keys),
 * which the plugin shares; SharedNamesTest checks that it keeps no copies.
 */
class KeysTest {
  @Test
  void restartGoesThroughTheReplicasFirstAndThePrimaryLast() {
    assertThat(Commands.restartOrder(List.of("db-0", "db-2", "db-1"), "db-1"))
        .containsExactly("db-0", "db-2", "db-1");
    assertThat(Commands.restartOrder(List.of("db-0"), "db-0")).containsExactly("db-0");
  }

  @Test
  void eventsOfTheDatabaseAndItsChildrenButNotOfAnotherDatabase() {
    var names = Commands.childNames("shop");
    for (String n :
        List.of(
            "shop",
            "shop-0",
            "shop-12",
            "data-shop-1",
            "shop-ro",
            "shop-headless",
            "shop-credentials",
            "shop-backups",
            "shop-backup",
            "shop-backup-now-5f6d7",
            "shop-backup-29380-abcde")) {
      assertThat(names.matcher(n).matches()).as(n).isTrue();
    }
    for (String n : List.of("shop-copy", "shop-copy-0", "shopping", "data-shop-copy-0")) {
      assertThat(names.matcher(n).matches()).as(n).isFalse();
    }
  }
}
