package dev.cellar.operator.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.javaoperatorsdk.operator.Operator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * /healthz, /readyz and /metrics. Liveness is JOSDK's health of the event sources: since 5.3 an
 * informer counts as healthy while it runs and has synced, so a watch that reconnects (an API
 * server restart) no longer fails it, and 5.2's need for a grace window went with it.
 */
public final class OperatorHttpServer implements AutoCloseable {
  private final HttpServer server;

  /** The Prometheus text format that {@link OperatorMetrics#scrape()} writes. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private OperatorHttpServer(HttpServer server) {
    this.server = server;
  }

  public static OperatorHttpServer start(int port, Operator operator, OperatorMetrics metrics)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext(
        "/healthz",
        exchange ->
            respond(
                exchange,
                !operator.getRuntimeInfo().isStarted()
                    || operator.getRuntimeInfo().allEventSourcesAreHealthy()));
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
}
