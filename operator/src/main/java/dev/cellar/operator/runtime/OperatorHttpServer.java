package dev.cellar.operator.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.javaoperatorsdk.operator.Operator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * /healthz, /readyz and /metrics. Liveness is judged over a window: JOSDK reports an informer
 * unhealthy while its watch reconnects (an API server restart), which must not restart the pod.
 */
public final class OperatorHttpServer implements AutoCloseable {
  /** How long the event sources may stay unhealthy before liveness fails. */
  public static final Duration UNHEALTHY_GRACE = Duration.ofSeconds(90);

  private final HttpServer server;

  /** The Prometheus text format that {@link OperatorMetrics#scrape()} writes. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private OperatorHttpServer(HttpServer server) {
    this.server = server;
  }

  public static OperatorHttpServer start(int port, Operator operator, OperatorMetrics metrics)
      throws IOException {
    HealthWindow window =
        new HealthWindow(
            () ->
                !operator.getRuntimeInfo().isStarted()
                    || operator.getRuntimeInfo().allEventSourcesAreHealthy(),
            UNHEALTHY_GRACE,
            Clock.systemUTC());
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext("/healthz", exchange -> respond(exchange, window.healthy()));
    server.createContext(
        "/readyz", exchange -> respond(exchange, operator.getRuntimeInfo().isStarted()));
    server.createContext(
        "/metrics", exchange -> send(exchange, 200, PROMETHEUS_TEXT, metrics.scrape()));
    server.setExecutor(null);
    server.start();
    return new OperatorHttpServer(server);
  }

  private static void respond(HttpExchange exchange, boolean ok) throws IOException {
    send(exchange, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "unhealthy\n");
  }

  private static void send(HttpExchange exchange, int code, String contentType, String text)
      throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /** Healthy unless the check has failed continuously for longer than the grace period. */
  static final class HealthWindow {
    private final BooleanSupplier check;
    private final Duration grace;
    private final Clock clock;
    private Instant unhealthySince;

    HealthWindow(BooleanSupplier check, Duration grace, Clock clock) {
      this.check = check;
      this.grace = grace;
      this.clock = clock;
    }

    synchronized boolean healthy() {
      if (check.getAsBoolean()) {
        unhealthySince = null;
        return true;
      }
      Instant now = clock.instant();
      if (unhealthySince == null) {
        unhealthySince = now;
      }
      return Duration.between(unhealthySince, now).compareTo(grace) <= 0;
    }
  }
}
