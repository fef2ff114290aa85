package dev.cellar.api.v1;

import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A PostgreSQL, MySQL or MariaDB database that Cellar runs and keeps running.
 *
 * <p>Its name becomes part of every child's name, so it is checked on create (names never change,
 * and a Database admitted before these rules keeps its status writes): a DNS-1035 label, because it
 * names Services ({@code <name>}, {@code <name>-ro}, {@code <name>-headless}), and at most {@link
 * #MAX_NAME_LENGTH} characters, because the backup CronJob {@code <name>-backup} may have at most
 * 52 (its Jobs append an 11-character suffix within a 63-character label).
 */
@ValidationRule(
    value =
        "oldSelf.hasValue() || (size(self.metadata.name) <= "
            + Database.MAX_NAME_LENGTH
            + " && self.metadata.name.matches('"
            + Database.NAME_PATTERN
            + "'))",
    optionalOldSelf = true,
    fieldPath = ".metadata.name",
    messageExpression =
        "size(self.metadata.name) > "
            + Database.MAX_NAME_LENGTH
            + " ? 'a Database name may have at most "
            + Database.MAX_NAME_LENGTH
            + " characters, because its backup CronJob <name>-backup may have at most 52'"
            + " : 'a Database name must be a DNS-1035 label (lower-case letters, digits and \\'-\\',"
            + " starting with a letter and ending with a letter or digit), because it names the"
            + " Database\\'s Services'",
    reason = "FieldValueInvalid")
@Group(Database.GROUP)
@Version(Database.VERSION)
@Kind("Database")
@Plural("databases")
@Singular("database")
@ShortNames("db")
public class Database extends CustomResource<DatabaseSpec, DatabaseStatus> implements Namespaced {
  public static final String GROUP = "cellar.dev";
  public static final String VERSION = "v1";
  public static final String CRD_NAME = "databases." + GROUP;

  /**
   * The longest name whose children all have valid names: the backup CronJob {@code <name>-backup}
   * may have at most 52 characters. (Services, {@code <name>-headless} the longest, allow 54;
   * StatefulSets, whose pods carry a {@code controller-revision-hash} label {@code <name>-<hash>},
   * allow 52.)
   */
  public static final int MAX_NAME_LENGTH = 45;

  /** A DNS-1035 label, as Service names must be. */
  public static final String NAME_PATTERN = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

  public Database() {}

  public Database(String namespace, String name, DatabaseSpec spec) {
    getMetadata().setNamespace(namespace);
    getMetadata().setName(name);
    setSpec(spec);
  }

  @Override
  protected DatabaseSpec initSpec() {
    return new DatabaseSpec();
  }
}
