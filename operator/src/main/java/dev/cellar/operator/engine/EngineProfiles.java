package dev.cellar.operator.engine;

import dev.cellar.api.v1.Database;
import dev.cellar.api.v1.Engine;
import java.util.EnumMap;
import java.util.Map;

/** The profile of each engine. */
public final class EngineProfiles {
  private static final Map<Engine, EngineProfile> PROFILES = new EnumMap<>(Engine.class);

  static {
    for (EngineProfile profile :
        new EngineProfile[] {new PostgresProfile(), new MySqlProfile(), new MariaDbProfile()}) {
      PROFILES.put(profile.engine(), profile);
    }
  }

  private EngineProfiles() {}

  public static EngineProfile of(Engine engine) {
    return PROFILES.get(engine);
  }

  public static EngineProfile of(Database db) {
    return of(db.getSpec().getEngine());
  }
}
