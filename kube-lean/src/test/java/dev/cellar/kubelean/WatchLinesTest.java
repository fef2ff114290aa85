package dev.cellar.kubelean;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cellar.kubelean.CompressedListsTest.Body;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.http.AsyncBody;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WatchLinesTest {
  static final ApiServerSerialization serialization =
      new ApiServerSerialization(new ObjectMapper(), ApiServerSerializationTest.KINDS);

  /**
   * What fabric8's HTTP watch does with the stream (its {@code WatchHTTPManager}): each buffer
   * decoded on its own, the decoder's whole array appended character by character, and each line
   * read as a watch event by the client's serialization.
   */
  static final class Fabric8Watch implements AsyncBody.Consumer<List<ByteBuffer>> {
    final StringBuffer text = new StringBuffer();
    final List<WatchEvent> events = new ArrayList<>();
    final List<String> lines = new ArrayList<>();
    final List<String> unread = new ArrayList<>();
    int calls;

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) {
      calls++;
      for (ByteBuffer buffer : buffers) {
        for (char c : StandardCharsets.UTF_8.decode(buffer).array()) {
          if (c == '\n') {
            lines.add(text.toString());
            try {
              events.add(serialization.unmarshal(text.toString(), WatchEvent.class));
            } catch (RuntimeException e) {
              unread.add(text.toString());
            }
            text.setLength(0);
          } else {
            text.append(c);
          }
        }
      }
      body.consume();
    }
  }

  static String event(int i, String notes) {
    return """
        {"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1",\
        "metadata":{"name":"c-%d","resourceVersion":"%d"},"data":{"notes":"%s"}}}"""
        .formatted(i, 100 + i, notes);
  }

  static final String NOTES = "données – ünïcödé ✓ 🐘 ".repeat(40);

  /** The stream's bytes in buffers of 1 to 60 bytes, a few buffers to each call. */
  static List<List<ByteBuffer>> calls(byte[] stream, long seed) {
    Random random = new Random(seed);
    List<List<ByteBuffer>> calls = new ArrayList<>();
    int at = 0;
    while (at < stream.length) {
      List<ByteBuffer> call = new ArrayList<>();
      for (int n = 1 + random.nextInt(3); n > 0 && at < stream.length; n--) {
        int size = Math.min(stream.length - at, 1 + random.nextInt(60));
        call.add(ByteBuffer.wrap(stream, at, size).slice());
        at += size;
      }
      calls.add(call);
    }
    return calls;
  }

  static Fabric8Watch watch(List<List<ByteBuffer>> calls, Body body, boolean split)
      throws Exception {
    Fabric8Watch fabric8 = new Fabric8Watch();
    AsyncBody.Consumer<List<ByteBuffer>> consumer =
        split ? new WatchLines(serialization).new Events(fabric8) : fabric8;
    for (List<ByteBuffer> call : calls) {
      consumer.consume(call, body);
    }
    return fabric8;
  }

  @Test
  void eventsWithTextBeyondAsciiSplitAnywhereAreReadWhole() throws Exception {
    String stream =
        IntStream.range(0, 20).mapToObj(i -> event(i, NOTES) + "\n").reduce("", String::concat);
    for (long seed = 0; seed < 20; seed++) {
      List<List<ByteBuffer>> calls = calls(stream.getBytes(StandardCharsets.UTF_8), seed);
      Body body = new Body();

      Fabric8Watch fabric8 = watch(calls, body, true);

      assertThat(fabric8.unread).isEmpty();
      assertThat(fabric8.events)
          .extracting(e -> ((ConfigMap) e.getObject()).getData().get("notes"))
          .hasSize(20)
          .containsOnly(NOTES);
      assertThat(fabric8.events)
          .extracting(e -> ((ConfigMap) e.getObject()).getMetadata().getName())
          .containsExactlyElementsOf(IntStream.range(0, 20).mapToObj(i -> "c-" + i).toList());
      assertThat(body.asked).as("asked for more once per call").hasValue(calls.size());
      assertThat(fabric8.text).as("fabric8 appended nothing").isEmpty();
    }
  }

  @Test
  void fabric8AloneLosesTheseEvents() throws Exception {
    // What made WatchLines necessary: the same stream read by fabric8's consumer alone.
    String stream =
        IntStream.range(0, 20).mapToObj(i -> event(i, NOTES) + "\n").reduce("", String::concat);

    Fabric8Watch fabric8 =
        watch(calls(stream.getBytes(StandardCharsets.UTF_8), 1), new Body(), false);

    assertThat(fabric8.unread).isNotEmpty();
  }

  @Test
  void aLineThatIsNotAnEventReachesFabric8AsText() throws Exception {
    String stream = event(1, "ascii") + "\n" + "{\"not\":\"an event\"}\n" + event(2, NOTES) + "\n";

    Fabric8Watch fabric8 =
        watch(
            List.of(List.of(ByteBuffer.wrap(stream.getBytes(StandardCharsets.UTF_8)))),
            new Body(),
            true);

    assertThat(fabric8.lines).containsExactly("", "{\"not\":\"an event\"}", "");
    assertThat(fabric8.events).hasSize(3);
  }

  @Test
  void anEventNotEndedYetWaitsForItsNewline() throws Exception {
    byte[] first = event(1, NOTES).getBytes(StandardCharsets.UTF_8);
    Fabric8Watch fabric8 = new Fabric8Watch();
    var events = new WatchLines(serialization).new Events(fabric8);
    Body body = new Body();

    events.consume(List.of(ByteBuffer.wrap(first)), body);
    assertThat(fabric8.events).isEmpty();
    assertThat(fabric8.calls).as("fabric8 still learns that the stream began").isEqualTo(1);

    events.consume(List.of(ByteBuffer.wrap(new byte[] {'\n'})), body);
    assertThat(fabric8.events).hasSize(1);
    assertThat(body.asked).hasValue(2);
    assertThat(WatchLines.readAhead()).as("nothing left for the next line").isNull();
  }
}
