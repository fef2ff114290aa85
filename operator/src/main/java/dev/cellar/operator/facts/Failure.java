package dev.cellar.operator.facts;

import dev.cellar.api.names.Conditions.Reason;

/**
 * A failure to report in Degraded: its reason and one line that says what to do. The steps that
 * find one (failover, password rotation, the server certificate, a failed reconcile) hand it to the
 * status, which only reports it.
 */
public record Failure(Reason reason, String message) {}
