package dev.cellar.kubelean;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The JDK's HTTP client as fabric8 builds it, except that each piece of a WebSocket's text reaches
 * fabric8 as a {@link String}. The JDK hands a watch event's text to the listener as a {@code
 * CharBuffer}; fabric8 appends it to a {@code StringBuilder}, which copies a {@code CharSequence}
 * that is not a String one {@code charAt} at a time: 2.9 % of the operator's CPU while converging
 * (docs/performance.md, Watch events read in one pass). {@code toString()} copies the buffer in one
 * go, and must: the JDK reuses the buffer once {@code onText} returns.
 */
final class WatchText {
  private WatchText() {}

  /** {@code builder}, whose clients' WebSockets hand their text over as strings. */
  static HttpClient.Builder wrap(HttpClient.Builder builder) {
    return new Builder(builder);
  }

  /** A listener that hands {@code listener} each piece of text as a String. */
  static WebSocket.Listener textAsString(WebSocket.Listener listener) {
    return new TextAsString(listener);
  }

  private static final class TextAsString implements WebSocket.Listener {
    private final WebSocket.Listener listener;

    TextAsString(WebSocket.Listener listener) {
      this.listener = listener;
    }

    @Override
    public void onOpen(WebSocket webSocket) {
      listener.onOpen(webSocket);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      return listener.onText(webSocket, data.toString(), last);
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
      return listener.onBinary(webSocket, data, last);
    }

    @Override
    public CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
      return listener.onPing(webSocket, message);
    }

    @Override
    public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
      return listener.onPong(webSocket, message);
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      return listener.onClose(webSocket, statusCode, reason);
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      listener.onError(webSocket, error);
    }
  }

  private static final class WebSocketBuilder implements WebSocket.Builder {
    private final WebSocket.Builder builder;

    WebSocketBuilder(WebSocket.Builder builder) {
      this.builder = builder;
    }

    @Override
    public WebSocket.Builder header(String name, String value) {
      builder.header(name, value);
      return this;
    }

    @Override
    public WebSocket.Builder connectTimeout(Duration timeout) {
      builder.connectTimeout(timeout);
      return this;
    }

    @Override
    public WebSocket.Builder subprotocols(String mostPreferred, String... lesserPreferred) {
      builder.subprotocols(mostPreferred, lesserPreferred);
      return this;
    }

    @Override
    public CompletableFuture<WebSocket> buildAsync(URI uri, WebSocket.Listener listener) {
      return builder.buildAsync(uri, textAsString(listener));
    }
  }

  /**
   * The client: every request goes to the JDK's; only its WebSocket builder is wrapped. fabric8
   * closes a client by shutting down its executor, which {@link #executor()} hands over.
   */
  private static final class Client extends HttpClient {
    private final HttpClient client;

    Client(HttpClient client) {
      this.client = client;
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
      return client.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
      return client.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
      return client.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
      return client.proxy();
    }

    @Override
    public SSLContext sslContext() {
      return client.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
      return client.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
      return client.authenticator();
    }

    @Override
    public Version version() {
      return client.version();
    }

    @Override
    public Optional<Executor> executor() {
      return client.executor();
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
        throws IOException, InterruptedException {
      return client.send(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
        HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      return client.sendAsync(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
        HttpRequest request,
        HttpResponse.BodyHandler<T> handler,
        HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
      return client.sendAsync(request, handler, pushPromiseHandler);
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
      return new WebSocketBuilder(client.newWebSocketBuilder());
    }
  }

  private static final class Builder implements HttpClient.Builder {
    private final HttpClient.Builder builder;

    Builder(HttpClient.Builder builder) {
      this.builder = builder;
    }

    @Override
    public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
      builder.cookieHandler(cookieHandler);
      return this;
    }

    @Override
    public HttpClient.Builder connectTimeout(Duration duration) {
      builder.connectTimeout(duration);
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(SSLContext sslContext) {
      builder.sslContext(sslContext);
      return this;
    }

    @Override
    public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
      builder.sslParameters(sslParameters);
      return this;
    }

    @Override
    public HttpClient.Builder executor(Executor executor) {
      builder.executor(executor);
      return this;
    }

    @Override
    public HttpClient.Builder followRedirects(HttpClient.Redirect policy) {
      builder.followRedirects(policy);
      return this;
    }

    @Override
    public HttpClient.Builder version(HttpClient.Version version) {
      builder.version(version);
      return this;
    }

    @Override
    public HttpClient.Builder priority(int priority) {
      builder.priority(priority);
      return this;
    }

    @Override
    public HttpClient.Builder proxy(ProxySelector proxySelector) {
      builder.proxy(proxySelector);
      return this;
    }

    @Override
    public HttpClient.Builder authenticator(Authenticator authenticator) {
      builder.authenticator(authenticator);
      return this;
    }

    @Override
    public HttpClient build() {
      return new Client(builder.build());
    }
  }
}
