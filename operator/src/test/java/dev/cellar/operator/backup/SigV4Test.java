package dev.cellar.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator's S3 signature against AWS's documented examples: "Authenticating Requests: Using
 * the Authorization Header (AWS Signature Version 4)" in the S3 API reference (bucket
 * examplebucket, 20130524T000000Z, us-east-1) and "Examples of how to derive a signing key for
 * Signature Version 4". One byte of difference anywhere and S3 answers SignatureDoesNotMatch
 * without saying why.
 */
class SigV4Test {
  static final String DATE = "20130524T000000Z";
  static final String HOST = "examplebucket.s3.amazonaws.com";

  /** The S3 examples' keys. */
  static final SigV4 S3_EXAMPLE =
      new SigV4(
          "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1", "s3");

  static Map<String, String> headers(String... extra) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Host", HOST);
    for (int i = 0; i < extra.length; i += 2) {
      headers.put(extra[i], extra[i + 1]);
    }
    headers.put("x-amz-content-sha256", SigV4.EMPTY_PAYLOAD);
    headers.put("x-amz-date", DATE);
    return headers;
  }

  static String signature(String authorization) {
    return authorization.substring(authorization.indexOf("Signature=") + "Signature=".length());
  }

  @Test
  void theEmptyPayloadHashIsSha256OfNothing() {
    assertThat(SigV4.EMPTY_PAYLOAD)
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @Test
  void getObjectWithARangeIsAwsExampleOne() {
    SigV4.Request request =
        new SigV4.Request(
            "GET", "/test.txt", Map.of(), headers("Range", "bytes=0-9"), SigV4.EMPTY_PAYLOAD);
    assertThat(SigV4.canonicalRequest(request))
        .isEqualTo(
            String.join(
                "\n",
                "GET",
                "/test.txt",
                "",
                "host:examplebucket.s3.amazonaws.com",
                "range:bytes=0-9",
                "x-amz-content-sha256:" + SigV4.EMPTY_PAYLOAD,
                "x-amz-date:20130524T000000Z",
                "",
                "host;range;x-amz-content-sha256;x-amz-date",
                SigV4.EMPTY_PAYLOAD));
    assertThat(SigV4.stringToSign(request, DATE, "20130524/us-east-1/s3/aws4_request"))
        .endsWith("\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    assertThat(S3_EXAMPLE.authorization(request, DATE))
        .isEqualTo(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  }

  @Test
  void aParameterWithoutValueIsSignedWithAnEmptyOne() {
    // "GET Bucket Lifecycle": GET /?lifecycle
    SigV4.Request request =
        new SigV4.Request("GET", "/", Map.of("lifecycle", ""), headers(), SigV4.EMPTY_PAYLOAD);
    assertThat(signature(S3_EXAMPLE.authorization(request, DATE)))
        .isEqualTo("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  }

  @Test
  void aListingSignsItsQuerySortedWhateverOrderItWasGivenIn() {
    // "Get Bucket (List Objects)": GET /?max-keys=2&prefix=J
    Map<String, String> query = new LinkedHashMap<>();
    query.put("prefix", "J");
    query.put("max-keys", "2");
    SigV4.Request request = new SigV4.Request("GET", "/", query, headers(), SigV4.EMPTY_PAYLOAD);
    assertThat(SigV4.canonicalQuery(query)).isEqualTo("max-keys=2&prefix=J");
    assertThat(signature(S3_EXAMPLE.authorization(request, DATE)))
        .isEqualTo("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  }

  @Test
  void theSigningKeyIsAwsDerivationExample() {
    SigV4 iam =
        new SigV4("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "iam");
    assertThat(SigV4.hex(iam.signingKey("20150830")))
        .isEqualTo("c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
  }

  @Test
  void encodingKeepsOnlyTheUnreservedCharactersAndTheSlashInAPath() {
    assertThat(SigV4.encode("a-b_c.d~e09AZ", true)).isEqualTo("a-b_c.d~e09AZ");
    assertThat(SigV4.encode("prod/orders=1 +é", true)).isEqualTo("prod%2Forders%3D1%20%2B%C3%A9");
    assertThat(SigV4.encode("/dumps/prod/a b", false)).isEqualTo("/dumps/prod/a%20b");
    // Sorted by name, then value: not as the joined strings, where "a-b=" sorts before "a=".
    assertThat(SigV4.canonicalQuery(Map.of("a-b", "1", "a", "2"))).isEqualTo("a=2&a-b=1");
  }

  @Test
  void theSignedHostIsTheOneJavaSends() {
    assertThat(S3Listing.host(URI.create("http://10.244.0.1:9000"))).isEqualTo("10.244.0.1:9000");
    assertThat(S3Listing.host(URI.create("https://s3.eu-west-1.amazonaws.com")))
        .isEqualTo("s3.eu-west-1.amazonaws.com");
    assertThat(S3Listing.host(URI.create("https://minio.storage:443"))).isEqualTo("minio.storage");
    assertThat(S3Listing.host(URI.create("http://minio.storage:80"))).isEqualTo("minio.storage");
    assertThat(S3Listing.host(URI.create("https://minio.storage:9000")))
        .isEqualTo("minio.storage:9000");
  }

  @Test
  void noSecretInItsText() {
    assertThat(S3_EXAMPLE.toString()).doesNotContain("EXAMPLEKEY");
  }
}
