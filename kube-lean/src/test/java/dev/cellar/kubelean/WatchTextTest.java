package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** A WebSocket's text reaches fabric8's listener as strings; everything else as it came. */
class WatchTextTest {
  /** What fabric8's listener was handed. */
  static final class Recorded implements WebSocket.Listener {
    final List<Object> received = new ArrayList<>();

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      received.add(data);
      received.add(last);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
      received.add(data);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      received.add(statusCode + " " + reason);
      return null;
    }
  }

  @Test
  void textArrivesAsStringsCopiedBeforeTheBufferIsReused() {
    Recorded fabric8 = new Recorded();
    WebSocket.Listener listener = WatchText.textAsString(fabric8);
    CharBuffer buffer = CharBuffer.wrap("{\"type\":\"ADDED\"".toCharArray());

    listener.onText(null, buffer, false);
    // The JDK fills the same buffer with the next piece once onText has returned.
    buffer.clear();
    buffer.put("}").flip();
    listener.onText(null, buffer, true);

    assertThat(fabric8.received).containsExactly("{\"type\":\"ADDED\"", false, "}", true);
    assertThat(fabric8.received.get(0)).isInstanceOf(String.class);
  }

  @Test
  void binaryAndCloseArePassedThrough() {
    Recorded fabric8 = new Recorded();
    WebSocket.Listener listener = WatchText.textAsString(fabric8);
    ByteBuffer bytes = ByteBuffer.wrap(new byte[] {1, 2});

    listener.onBinary(null, bytes, true);
    listener.onClose(null, 1000, "done");

    assertThat(fabric8.received).containsExactly(bytes, "1000 done");
  }
}
