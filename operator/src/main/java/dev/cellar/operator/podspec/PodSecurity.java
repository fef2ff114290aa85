package dev.cellar.operator.podspec;

import dev.cellar.operator.engine.EngineProfile;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/** The security context of every pod Cellar runs: admitted by the restricted PodSecurity level. */
public final class PodSecurity {
  /** 0640: read by the database user through the pod's fsGroup, by no one else. */
  public static final int TLS_FILE_MODE = 0640;

  private PodSecurity() {}

  public static PodSecurityContext pod() {
    return new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(EngineProfile.DATABASE_UID)
        .withRunAsGroup(EngineProfile.DATABASE_UID)
        .withFsGroup(EngineProfile.DATABASE_UID)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }

  public static SecurityContext container() {
    return builder().build();
  }

  /**
   * A container whose root filesystem is read-only: it writes only into the volumes it mounts (the
   * backup Jobs and the restore step, with an emptyDir at /tmp and their scratch).
   */
  public static SecurityContext readOnlyContainer() {
    return builder().withReadOnlyRootFilesystem(true).build();
  }

  private static SecurityContextBuilder builder() {
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities();
  }
}
