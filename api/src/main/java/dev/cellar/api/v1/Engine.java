package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;

/** The database engine. It cannot change once the Database exists. */
public enum Engine {
  @JsonProperty("postgresql")
  POSTGRESQL("postgresql"),
  @JsonProperty("mysql")
  MYSQL("mysql"),
  @JsonProperty("mariadb")
  MARIADB("mariadb");

  private final String value;

  Engine(String value) {
    this.value = value;
  }

  /** The name used in the API, e.g. {@code postgresql}. */
  @JsonValue
  public String value() {
    return value;
  }

  @Override
  public String toString() {
    return value;
  }
}
