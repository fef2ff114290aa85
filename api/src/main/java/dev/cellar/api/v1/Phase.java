package dev.cellar.api.v1;

/** One word for {@code kubectl get db}; the conditions carry the detail. */
public enum Phase {
  Provisioning,
  Ready,
  Updating,
  Degraded,
  Failed,
  /** spec.hibernated: no pod runs; volumes, Secret and Services are kept. */
  Hibernated
}
