package dev.cellar.kubelean;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Asks the API server to gzip what it reads back, and inflates it. The API server compresses a
 * response over 128 KiB when the client accepts gzip (lists, in practice); fabric8's clients never
 * ask. A restarted operator lists every child of every Database, 141 KB of JSON per Database at N =
 * 1000, which gzip makes 3 to 9 times smaller: under the operator's C1-only JVM decrypting TLS was
 * a quarter to a half of its start-up CPU (docs/performance.md, Compressed lists and ChaCha20
 * first). Watches are left alone (the API server does not compress them, and a compressed stream
 * would hold events back).
 */
public final class CompressedLists implements Interceptor {
  static final String NAME = "cellar-compressed-lists";
  private static final String ACCEPT_ENCODING = "Accept-Encoding";

  private final AtomicLong inflated = new AtomicLong();

  /** How many responses arrived compressed and were inflated (tests, measurements). */
  public long inflated() {
    return inflated.get();
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (builder instanceof HttpRequest.Builder
        && "GET".equals(request.method())
        && !isWatch(request)
        && !request.uri().getPath().endsWith("/log")) {
      builder.setHeader(ACCEPT_ENCODING, "gzip");
    }
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(
      AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
    List<String> accepted = request.headers(ACCEPT_ENCODING);
    return accepted != null && accepted.contains("gzip")
        ? new Gunzip(consumer, inflated::incrementAndGet)
        : consumer;
  }

  static boolean isWatch(HttpRequest request) {
    String query = request.uri().getRawQuery();
    return query != null && (query.startsWith("watch=true") || query.contains("&watch=true"));
  }

  /**
   * A body that may be gzip: decided by its first byte (0x1f begins gzip, never JSON), so no
   * response header is needed; the body's bytes are inflated as they arrive, each call's output in
   * new buffers (a consumer may keep them).
   */
  static final class Gunzip implements AsyncBody.Consumer<List<ByteBuffer>> {
    private static final int FIRST_BYTE = 0x1f;
    private static final int FLAG_HEADER_CRC = 2;
    private static final int FLAG_EXTRA = 4;
    private static final int FLAG_NAME = 8;
    private static final int FLAG_COMMENT = 16;

    private final AsyncBody.Consumer<List<ByteBuffer>> next;
    private final Runnable onCompressed;
    private Boolean compressed;
    private final ByteArrayOutputStream header = new ByteArrayOutputStream(16);
    private Inflater inflater;

    Gunzip(AsyncBody.Consumer<List<ByteBuffer>> next, Runnable onCompressed) {
      this.next = next;
      this.onCompressed = onCompressed;
    }

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) throws Exception {
      if (compressed == null) {
        for (ByteBuffer buffer : buffers) {
          if (buffer.hasRemaining()) {
            compressed = (buffer.get(buffer.position()) & 0xff) == FIRST_BYTE;
            if (compressed) {
              onCompressed.run();
            }
            break;
          }
        }
        if (compressed == null) {
          body.consume();
          return;
        }
      }
      if (!compressed) {
        next.consume(buffers, body);
        return;
      }
      List<ByteBuffer> out = new ArrayList<>();
      for (ByteBuffer buffer : buffers) {
        inflate(buffer, out);
      }
      if (out.isEmpty()) {
        body.consume(); // only header bytes so far: ask for more, the next consumer saw nothing
      } else {
        next.consume(out, body);
      }
    }

    @Override
    public <U> U unwrap(Class<U> target) {
      return next.unwrap(target);
    }

    private void inflate(ByteBuffer in, List<ByteBuffer> out) throws IOException {
      while (inflater == null && in.hasRemaining()) {
        header.write(in.get());
        if (headerComplete(header.toByteArray())) {
          inflater = new Inflater(true);
        }
      }
      // After the deflate stream come its CRC and length (8 bytes): TLS has checked the bytes.
      if (inflater == null || inflater.finished() || !in.hasRemaining()) {
        return;
      }
      inflater.setInput(in);
      try {
        while (true) {
          byte[] chunk = new byte[Math.min(256 * 1024, Math.max(16 * 1024, 4 * in.remaining()))];
          int n = inflater.inflate(chunk);
          if (n > 0) {
            out.add(ByteBuffer.wrap(chunk, 0, n));
          } else if (inflater.finished()) {
            inflater.end();
            return;
          } else if (inflater.needsInput()) {
            return;
          } else if (inflater.needsDictionary()) {
            throw new IOException("a gzip response asks for a preset dictionary");
          }
        }
      } catch (DataFormatException e) {
        throw new IOException("a gzip response from the API server is corrupt: " + e.getMessage());
      }
    }

    /** Whether {@code h} is a whole gzip member header (RFC 1952), its last byte the last one. */
    static boolean headerComplete(byte[] h) throws IOException {
      if (h.length < 10) {
        return false;
      }
      if ((h[0] & 0xff) != FIRST_BYTE || (h[1] & 0xff) != 0x8b || h[2] != 8) {
        throw new IOException("a response that begins like gzip is not gzip with deflate");
      }
      int flags = h[3] & 0xff;
      int at = 10;
      if ((flags & FLAG_EXTRA) != 0) {
        if (h.length < at + 2) {
          return false;
        }
        at += 2 + ((h[at] & 0xff) | (h[at + 1] & 0xff) << 8);
      }
      for (int flag : new int[] {FLAG_NAME, FLAG_COMMENT}) {
        if ((flags & flag) != 0) {
          while (at < h.length && h[at] != 0) {
            at++;
          }
          if (at >= h.length) {
            return false;
          }
          at++;
        }
      }
      if ((flags & FLAG_HEADER_CRC) != 0) {
        at += 2;
      }
      return h.length == at;
    }
  }
}
