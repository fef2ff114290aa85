package dev.cellar.kubelean;

import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Splits an HTTP watch's stream into its events and reads each one from its bytes, for fabric8's
 * HTTP watches ({@link ApiServerClient#httpWatches()}). fabric8 decodes each buffer of the stream
 * on its own and appends the characters to a {@code StringBuffer} one call at a time, then Cellar
 * encodes the text back to bytes to read it:
 *
 * <ul>
 *   <li>a character whose bytes two buffers share is decoded as two replacement characters, and
 *       each buffer with any character of two bytes or more brings NUL characters with it (the
 *       decoder's array is longer than what it decoded), so an event with text beyond ASCII could
 *       not be read at all and the informer never saw that object (ApiServerClientIT);
 *   <li>the appends made a 4.4 KB pod event cost 131 to 141 us instead of 40 to 42 (C1), about 2 %
 *       of the operator's CPU while 500 Databases converged (docs/performance.md, Watch events read
 *       in one pass).
 * </ul>
 *
 * <p>Here each event, once its closing newline has come, is read by {@link
 * ApiServerSerialization#watchEvent(byte[], int)}; fabric8 is handed an empty line for it, and its
 * serialization answers that line with the event read ({@link #readAhead()}). An event that does
 * not read that way reaches fabric8 as its bytes, as before, and fabric8 says what is wrong with
 * it.
 */
final class WatchLines implements Interceptor {
  static final String NAME = "cellar-watch-lines";

  /** The event this thread has just read, while fabric8 is handed its empty line. */
  private static final ThreadLocal<WatchEvent> READ = new ThreadLocal<>();

  private static final byte NEWLINE = '\n';

  private final ApiServerSerialization serialization;

  WatchLines(ApiServerSerialization serialization) {
    this.serialization = serialization;
  }

  /** The event read for the empty line fabric8 is reading on this thread, if any. */
  static WatchEvent readAhead() {
    return READ.get();
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(
      AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
    return CompressedLists.isWatch(request) ? new Events(consumer) : consumer;
  }

  /** One watch's stream: the bytes of the event not complete yet, and fabric8's consumer. */
  final class Events implements AsyncBody.Consumer<List<ByteBuffer>> {
    /** Kept between events up to this size; a larger event's array goes once it is read. */
    private static final int KEPT = 16 * 1024;

    private final AsyncBody.Consumer<List<ByteBuffer>> next;
    private byte[] line = new byte[1024];
    private int length;

    Events(AsyncBody.Consumer<List<ByteBuffer>> next) {
      this.next = next;
    }

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) throws Exception {
      // fabric8's consumer asks for more after each call; here it is called once per event, so
      // the stream is asked once per call of ours instead.
      AsyncBody asked = new AskedHere(body);
      boolean handed = false;
      for (ByteBuffer buffer : buffers) {
        while (buffer.hasRemaining()) {
          int end = indexOfNewline(buffer);
          if (end < 0) {
            append(buffer, buffer.remaining());
            break;
          }
          append(buffer, end - buffer.position());
          buffer.get(); // the newline
          hand(asked);
          handed = true;
        }
      }
      if (!handed) {
        next.consume(List.of(), asked); // fabric8 notes that the stream has begun
      }
      body.consume();
    }

    @Override
    public <U> U unwrap(Class<U> target) {
      return next.unwrap(target);
    }

    private void hand(AsyncBody asked) throws Exception {
      byte[] bytes = line;
      int size = length;
      length = 0;
      if (line.length > KEPT) {
        line = new byte[1024];
      }
      WatchEvent event = size == 0 ? null : serialization.watchEvent(bytes, size);
      if (event == null) {
        ByteBuffer text = ByteBuffer.allocate(size + 1).put(bytes, 0, size).put(NEWLINE).flip();
        next.consume(List.of(text), asked);
        return;
      }
      READ.set(event);
      try {
        next.consume(List.of(ByteBuffer.wrap(new byte[] {NEWLINE})), asked);
      } finally {
        READ.remove();
      }
    }

    private void append(ByteBuffer buffer, int count) {
      if (length + count > line.length) {
        line = Arrays.copyOf(line, Math.max(length + count, 2 * line.length));
      }
      buffer.get(line, length, count);
      length += count;
    }
  }

  /** The position of the next newline in {@code buffer}, or -1. */
  private static int indexOfNewline(ByteBuffer buffer) {
    for (int i = buffer.position(); i < buffer.limit(); i++) {
      if (buffer.get(i) == NEWLINE) {
        return i;
      }
    }
    return -1;
  }

  /** The stream's body, whose asking for more is left to {@link Events#consume}. */
  private record AskedHere(AsyncBody body) implements AsyncBody {
    @Override
    public void consume() {}

    @Override
    public CompletableFuture<Void> done() {
      return body.done();
    }

    @Override
    public void cancel() {
      body.cancel();
    }
  }
}
