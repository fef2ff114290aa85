package dev.cellar.api.v1;

/** What happens to the data when a Database is deleted. */
public enum DeletionPolicy {
  /** Data PVCs, the credentials Secret and the backups PVC stay; a new Database picks them up. */
  Retain,
  /** Everything goes with the Database. */
  Delete
}
