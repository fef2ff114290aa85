package dev.cellar.operator.backup;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for S3 (AWS4-HMAC-SHA256 in the Authorization header), the signature the
 * backup scripts' {@code curl --aws-sigv4} makes: the operator signs its own listing of a bucket
 * when it checks a restore's source ({@link RestoreSource}). Written here rather than taken from an
 * SDK: one GET needs a page of code, an SDK tens of megabytes in the operator's image. Pure: the
 * time is given, so AWS's documented examples are its tests.
 *
 * @param service the service the requests are signed for: {@code s3}
 */
record SigV4(String accessKeyId, String secretAccessKey, String region, String service) {

  static final String ALGORITHM = "AWS4-HMAC-SHA256";

  /** The hash of an empty body, which a GET sends and signs. */
  static final String EMPTY_PAYLOAD = hex(sha256(new byte[0]));

  /**
   * A request to sign.
   *
   * @param path the absolute path, not yet encoded
   * @param query the query's parameters, not yet encoded (a parameter without a value has "")
   * @param headers the headers to sign, by lower-case name: {@code host} and {@code x-amz-date} at
   *     least, and {@code x-amz-content-sha256} for S3
   * @param payloadHash the hex SHA-256 of the body, as sent in x-amz-content-sha256
   */
  record Request(
      String method,
      String path,
      Map<String, String> query,
      Map<String, String> headers,
      String payloadHash) {}

  /** The Authorization header's value for {@code request}, sent at {@code amzDate}. */
  String authorization(Request request, String amzDate) {
    String scope = amzDate.substring(0, 8) + "/" + region + "/" + service + "/aws4_request";
    String signature =
        hex(hmac(signingKey(amzDate.substring(0, 8)), stringToSign(request, amzDate, scope)));
    return ALGORITHM
        + " Credential="
        + accessKeyId
        + "/"
        + scope
        + ",SignedHeaders="
        + signedHeaders(request)
        + ",Signature="
        + signature;
  }

  static String stringToSign(Request request, String amzDate, String scope) {
    return ALGORITHM
        + "\n"
        + amzDate
        + "\n"
        + scope
        + "\n"
        + hex(sha256(canonicalRequest(request).getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The canonical request: method, the path encoded once (S3 does not encode it twice), the query
   * sorted by its encoded names, each signed header as {@code name:value}, their names, and the
   * payload's hash.
   */
  static String canonicalRequest(Request request) {
    StringBuilder headers = new StringBuilder();
    lowerCase(request.headers())
        .forEach(
            (name, value) ->
                headers
                    .append(name)
                    .append(':')
                    .append(value.strip().replaceAll(" +", " "))
                    .append('\n'));
    return String.join(
        "\n",
        request.method(),
        encode(request.path(), false),
        canonicalQuery(request.query()),
        headers.toString(),
        signedHeaders(request),
        request.payloadHash());
  }

  /** The query as it is signed, and as the operator sends it: sorted, each part encoded. */
  static String canonicalQuery(Map<String, String> query) {
    // By encoded name, then value: sorting the joined "name=value" strings would put "a-b=" before
    // "a=".
    return query.entrySet().stream()
        .map(e -> Map.entry(encode(e.getKey(), true), encode(e.getValue(), true)))
        .sorted(
            Map.Entry.<String, String>comparingByKey().thenComparing(Map.Entry.comparingByValue()))
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining("&"));
  }

  private static String signedHeaders(Request request) {
    return String.join(";", lowerCase(request.headers()).keySet());
  }

  /** The headers by lower-case name, in order. */
  private static TreeMap<String, String> lowerCase(Map<String, String> headers) {
    TreeMap<String, String> lower = new TreeMap<>();
    headers.forEach((name, value) -> lower.put(name.toLowerCase(Locale.ROOT), value));
    return lower;
  }

  /** The key for {@code date} (yyyyMMdd): the secret, HMACed with the date, region, service. */
  byte[] signingKey(String date) {
    byte[] key = hmac(("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8), date);
    key = hmac(key, region);
    key = hmac(key, service);
    return hmac(key, "aws4_request");
  }

  /**
   * URI encoding as Signature V4 wants it: every byte but A-Z, a-z, 0-9 and {@code -._~} as %XX
   * (upper case); {@code /} kept in a path ({@code slash} false), encoded in a query part.
   */
  static String encode(String s, boolean slash) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~'
          || (c == '/' && !slash)) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static byte[] hmac(byte[] key, String data) {
    return hmac(key, data.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
    }
  }

  static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JRE", e);
    }
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** Not the keys: this record is logged nowhere, but a toString must never print a secret. */
  @Override
  public String toString() {
    return "SigV4[" + accessKeyId + ", " + region + ", " + service + "]";
  }
}
