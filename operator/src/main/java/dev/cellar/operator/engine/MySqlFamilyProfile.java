package dev.cellar.operator.engine;

import dev.cellar.api.v1.Database;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
import java.util.Map;

/** What MySQL and MariaDB share: port, data path, my.cnf include, root-user dumps. */
abstract class MySqlFamilyProfile extends EngineProfile {
  /** Prefix of the image's environment contract: MYSQL_ or MARIADB_. */
  protected abstract String envPrefix();

  /** The engine's settings in {@code [mysqld]}. */
  protected abstract String serverSettings();

  @Override
  public int port() {
    return 3306;
  }

  @Override
  public String dataMountPath(EngineVersion version) {
    return "/var/lib/mysql";
  }

  @Override
  public List<EnvVar> env(String secret, EngineVersion version) {
    String p = envPrefix();
    return List.of(
        fromSecret(p + "ROOT_PASSWORD", secret, ROOT_PASSWORD),
        fromSecret(p + "USER", secret, USERNAME),
        fromSecret(p + "PASSWORD", secret, PASSWORD),
        fromSecret(p + "DATABASE", secret, DATABASE));
  }

  @Override
  public List<EnvVar> dumpEnv(String secret) {
    return List.of(fromSecret("MYSQL_PWD", secret, ROOT_PASSWORD));
  }

  @Override
  public String uriScheme() {
    return "mysql";
  }

  @Override
  public Map<String, String> configFiles(Database db) {
    return Map.of(
        "cellar.cnf",
        "# Written by Cellar; the image includes every file of this directory.\n[mysqld]\n"
            + "skip-name-resolve\n"
            + serverSettings());
  }

  @Override
  public Map<String, String> engineIncludes() {
    return Map.of("cellar.cnf", "/etc/mysql/conf.d/cellar.cnf");
  }

  @Override
  public boolean upgradesMajorInPlace() {
    return true;
  }
}
