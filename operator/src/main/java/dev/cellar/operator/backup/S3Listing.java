package dev.cellar.operator.backup;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One S3 ListObjectsV2 request (a signed GET, path-style, as the backup scripts send theirs), and
 * what its answer says: the keys under a prefix, a bucket that does not exist, keys the store
 * refuses, or no answer at all. The operator's only S3 call: {@link RestoreSource} checks with it
 * that a restore's dump is in the bucket before any pod is made.
 */
final class S3Listing {
  private S3Listing() {}

  /** Short: the check runs in a reconcile, and an endpoint that does not answer is no verdict. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

  // HTTP/1.1, whose Host header is the endpoint's host[:port] as signed (HTTP/2's :authority is
  // not what every S3-compatible server checks); no redirects (a signed request is not resent).
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(CONNECT_TIMEOUT)
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** What the store answered. */
  enum Kind {
    /** The keys under the prefix (at most 1,000: {@code truncated} says whether there are more). */
    LISTED,
    /** NoSuchBucket. */
    NO_BUCKET,
    /** The keys or their signature refused, or signed for the wrong region. */
    REFUSED,
    /** No answer: not reachable from the operator, a timeout, a TLS handshake that failed. */
    UNREACHABLE,
    /** Any other answer (AccessDenied, a server error): it says nothing about the dump. */
    UNEXPECTED
  }

  /**
   * An answer.
   *
   * @param keys the keys listed, whole (prefix included)
   * @param detail for anything but LISTED, one line saying what the store or the connection said
   */
  record Answer(Kind kind, List<String> keys, boolean truncated, String detail) {
    static Answer not(Kind kind, String detail) {
      return new Answer(kind, List.of(), false, detail);
    }
  }

  /** The store's error codes that mean the request's credentials were refused. */
  private static final List<String> REFUSED_CODES =
      List.of(
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "AuthorizationHeaderMalformed",
          "InvalidToken",
          "ExpiredToken");

  /**
   * Lists the keys under {@code prefix} in {@code bucket} at {@code endpoint}
   * (http(s)://host[:port]), signed with {@code signer} at {@code now}. Never throws for what the
   * store or the network does.
   */
  static Answer list(String endpoint, String bucket, String prefix, SigV4 signer, Instant now) {
    URI base = URI.create(endpoint.replaceAll("/+$", ""));
    String path = "/" + bucket + "/";
    Map<String, String> query = new LinkedHashMap<>();
    query.put("list-type", "2");
    query.put("prefix", prefix);
    String amzDate = AMZ_DATE.format(now);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("host", host(base));
    headers.put("x-amz-content-sha256", SigV4.EMPTY_PAYLOAD);
    headers.put("x-amz-date", amzDate);
    String authorization =
        signer.authorization(
            new SigV4.Request("GET", path, query, headers, SigV4.EMPTY_PAYLOAD), amzDate);
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(base + SigV4.encode(path, false) + "?" + SigV4.canonicalQuery(query)))
            .timeout(ANSWER_TIMEOUT)
            .header("x-amz-content-sha256", SigV4.EMPTY_PAYLOAD)
            .header("x-amz-date", amzDate)
            .header("Authorization", authorization)
            .GET()
            .build();
    HttpResponse<String> response;
    try {
      response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException | RuntimeException e) {
      return Answer.not(Kind.UNREACHABLE, oneLine(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Answer.not(Kind.UNREACHABLE, "interrupted");
    }
    return answer(response.statusCode(), response.body());
  }

  /** What a status and body say. */
  static Answer answer(int status, String body) {
    if (status == 200) {
      List<String> keys = new ArrayList<>();
      Matcher key = KEY.matcher(body);
      while (key.find()) {
        keys.add(unescape(key.group(1)));
      }
      return new Answer(Kind.LISTED, keys, body.contains("<IsTruncated>true</IsTruncated>"), "");
    }
    String code = element(body, "Code").orElse("");
    String said =
        "HTTP "
            + status
            + (code.isEmpty() ? "" : " " + code)
            + element(body, "Message").map(m -> ": " + m).orElse("");
    if ("NoSuchBucket".equals(code)) {
      return Answer.not(Kind.NO_BUCKET, said);
    }
    if (REFUSED_CODES.contains(code)) {
      return Answer.not(Kind.REFUSED, said);
    }
    return Answer.not(Kind.UNEXPECTED, said);
  }

  private static final Pattern KEY = Pattern.compile("<Key>([^<]*)</Key>");

  private static Optional<String> element(String body, String name) {
    Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(body);
    return m.find() ? Optional.of(unescape(m.group(1)).strip()) : Optional.empty();
  }

  private static String unescape(String xml) {
    return xml.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
  }

  /**
   * The Host header java.net.http sends, which is what must be signed: the host, with the port
   * unless it is the scheme's default.
   */
  static String host(URI endpoint) {
    int port = endpoint.getPort();
    boolean defaultPort =
        port == -1 || port == ("https".equalsIgnoreCase(endpoint.getScheme()) ? 443 : 80);
    return defaultPort ? endpoint.getHost() : endpoint.getHost() + ":" + port;
  }

  /**
   * The exception and its causes, one line: java.net.http's ConnectException for a refused
   * connection has no message of its own, only its cause's class.
   */
  private static String oneLine(Throwable e) {
    List<String> parts = new ArrayList<>();
    for (Throwable t = e; t != null && parts.size() < 3; t = t.getCause()) {
      parts.add(
          t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage()));
    }
    return String.join(", caused by ", parts).replaceAll("\\s+", " ").strip();
  }
}
