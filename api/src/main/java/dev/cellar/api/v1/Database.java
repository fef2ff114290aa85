package dev.cellar.api.v1;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** A PostgreSQL, MySQL or MariaDB database that Cellar runs and keeps running. */
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
