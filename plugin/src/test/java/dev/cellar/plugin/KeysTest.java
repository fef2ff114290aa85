package dev.cellar.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cellar.api.names.ChildNames;
import dev.cellar.api.names.Keys;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plugin repeats the operator's names (it does not ship the operator): they must agree. */
class KeysTest {
  @Test
  void thePluginsNamesAreTheOperators() {
    assertThat(Commands.INSTANCE).isEqualTo(Keys.INSTANCE);
    assertThat(Commands.COMPONENT).isEqualTo(Keys.COMPONENT);
    assertThat(Commands.COMPONENT_DATABASE).isEqualTo(Keys.Component.DATABASE.value());
    assertThat(Commands.ROLE).isEqualTo(Keys.ROLE).isEqualTo(StatusView.ROLE_LABEL);
    assertThat(Commands.ROLE_PRIMARY).isEqualTo(Keys.ROLE_PRIMARY);
    assertThat(Commands.BACKUP_NOW).isEqualTo(Keys.BACKUP_NOW_ANNOTATION);
    assertThat(Commands.SWITCHOVER_TO).isEqualTo(Keys.SWITCHOVER_ANNOTATION);
    assertThat(ClientSession.CONTAINER).isEqualTo(ChildNames.DATABASE_CONTAINER);
  }

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
