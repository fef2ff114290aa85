package dev.cellar.plugin;

/** The help text. */
final class Usage {
  private Usage() {}

  static final String TEXT =
      """
      kubectl cellar: day-two commands for Cellar Databases (cellar.dev/v1).

      Usage: kubectl cellar COMMAND NAME [flags]

      Commands:
        status NAME                 phase, conditions, pods and roles, endpoints, backups, Events
        psql NAME [-- ARGS]         psql on the primary (--replica: a ready replica), as the
        mysql NAME [-- ARGS]          Database's user; the password stays in the pod
        backup NAME [--wait]        a backup now (annotation cellar.dev/backup-now)
               [--verify]             instead, the newest stored dump verified again
                                      (annotation cellar.dev/verify-now)
        restore NAME --to NEW       a new Database restored from NAME's latest dump
                [--backup DUMP] [--source volume|objectStore]
                [--engine E --version V --storage S]   (when NAME is gone)
                [--storage-class C] [--dry-run]
        promote NAME POD [--wait]   switchover to POD (or its ordinal; cellar.dev/switchover-to)
        restart NAME                rolling restart: replicas one by one, then the primary
        hibernate NAME [--wait]     stop every pod, keep volumes, Secret, Services (spec.hibernated)
        wake NAME [--wait]          start them again
        logs NAME [-f] [--tail N] [-c CONTAINER]   every pod's log, lines prefixed [pod/container]
        report NAME [--file ZIP]    a zip of the Database, its children, Events and logs, with
                                    Secret values redacted, for bug reports
        version, help

      Flags (as kubectl's):
        -n, --namespace NS   --context NAME   --kubeconfig FILE
        -o, --output json|yaml   (status, restore --dry-run)
        --timeout SECONDS    how long --wait and restart wait (default 600)
        --no-color           no colours (also NO_COLOR=1; colours only on a terminal anyway)
      """;
}
