package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.http.AsyncBody;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CompressedListsTest {
  /** A body as fabric8 hands it over: buffers in calls, more only when the consumer asks. */
  static final class Body implements AsyncBody {
    final AtomicInteger asked = new AtomicInteger();

    @Override
    public void consume() {
      asked.incrementAndGet();
    }

    @Override
    public CompletableFuture<Void> done() {
      return new CompletableFuture<>();
    }

    @Override
    public void cancel() {}
  }

  /** What the next consumer received, and whether it asked for more after each call. */
  static final class Received implements AsyncBody.Consumer<List<ByteBuffer>> {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<ByteBuffer> kept = new ArrayList<>();
    int calls;

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) {
      calls++;
      for (ByteBuffer buffer : buffers) {
        kept.add(buffer);
        byte[] b = new byte[buffer.remaining()];
        buffer.duplicate().get(b);
        bytes.write(b, 0, b.length);
      }
      body.consume();
    }
  }

  static byte[] json(int size) {
    StringBuilder s = new StringBuilder("{\"kind\":\"ConfigMapList\",\"items\":[");
    Random random = new Random(size);
    while (s.length() < size) {
      s.append("{\"name\":\"db-").append(random.nextInt(1000)).append("-config\"},");
    }
    return s.append("{}]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }

  /** Feeds {@code data} in calls of {@code chunk} bytes (two buffers per call when it can). */
  static void feed(CompressedLists.Gunzip gunzip, byte[] data, int chunk, Body body)
      throws Exception {
    for (int at = 0; at < data.length; at += chunk) {
      int end = Math.min(data.length, at + chunk);
      int middle = at + (end - at) / 2;
      gunzip.consume(
          List.of(
              ByteBuffer.wrap(data, at, middle - at), ByteBuffer.wrap(data, middle, end - middle)),
          body);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 11, 4096, 1 << 20})
  void aGzipBodyArrivesInflatedWhateverItsChunks(int chunk) throws Exception {
    byte[] original = json(600_000);
    Received received = new Received();
    AtomicInteger compressed = new AtomicInteger();
    CompressedLists.Gunzip gunzip =
        new CompressedLists.Gunzip(received, compressed::incrementAndGet);
    Body body = new Body();

    feed(gunzip, gzip(original), chunk, body);

    assertThat(received.bytes.toByteArray()).isEqualTo(original);
    assertThat(compressed).hasValue(1);
    // Every call asked for more, through the next consumer or, with header bytes only, itself.
    assertThat(body.asked.get()).isEqualTo((gzip(original).length + chunk - 1) / chunk);
  }

  @Test
  void aPlainBodyPassesUnchanged() throws Exception {
    byte[] original = json(10_000);
    Received received = new Received();
    AtomicInteger compressed = new AtomicInteger();
    CompressedLists.Gunzip gunzip =
        new CompressedLists.Gunzip(received, compressed::incrementAndGet);

    gunzip.consume(List.of(ByteBuffer.allocate(0)), new Body());
    feed(gunzip, original, 1000, new Body());

    assertThat(received.bytes.toByteArray()).isEqualTo(original);
    assertThat(compressed).hasValue(0);
  }

  @Test
  void theBuffersHandedOnAreNotReused() throws Exception {
    byte[] original = json(300_000);
    Received received = new Received();
    CompressedLists.Gunzip gunzip = new CompressedLists.Gunzip(received, () -> {});

    feed(gunzip, gzip(original), 8192, new Body());

    ByteArrayOutputStream again = new ByteArrayOutputStream();
    for (ByteBuffer kept : received.kept) {
      byte[] b = new byte[kept.remaining()];
      kept.duplicate().get(b);
      again.write(b, 0, b.length);
    }
    assertThat(again.toByteArray()).isEqualTo(original);
  }

  @Test
  void headerFieldsAreSkipped() throws Exception {
    // A header with extra field, name, comment and header CRC (RFC 1952), then the deflate stream.
    byte[] plain = gzip(json(1000));
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    data.write(new byte[] {0x1f, (byte) 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, (byte) 255});
    data.write(new byte[] {3, 0, 'a', 'b', 'c'});
    data.write("list.json\0".getBytes(StandardCharsets.US_ASCII));
    data.write("a comment\0".getBytes(StandardCharsets.US_ASCII));
    data.write(new byte[] {0, 0});
    data.write(plain, 10, plain.length - 10);
    Received received = new Received();

    feed(new CompressedLists.Gunzip(received, () -> {}), data.toByteArray(), 5, new Body());

    assertThat(received.bytes.toByteArray()).isEqualTo(json(1000));
  }

  @Test
  void aCorruptBodyIsAnErrorNotATruncatedList() throws Exception {
    byte[] data = gzip(json(100_000));
    for (int i = 20; i < 60; i++) {
      data[i] ^= 0x5a;
    }
    CompressedLists.Gunzip gunzip = new CompressedLists.Gunzip(new Received(), () -> {});

    assertThatThrownBy(() -> feed(gunzip, data, 1 << 20, new Body()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("corrupt");
  }

  @Test
  void chaCha20ComesFirstAndNothingIsDropped() {
    String[] defaults = {
      "TLS_AES_256_GCM_SHA384",
      "TLS_AES_128_GCM_SHA256",
      "TLS_CHACHA20_POLY1305_SHA256",
      "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
      "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
    };
    assertThat(ApiServerClient.chaChaFirst(defaults))
        .containsExactly(
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
  }
}
