package dev.cellar.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.AllArgsConstructor;
import lombok.Data;
import lombok.NoArgsConstructor;

/**
 * An S3-compatible bucket: where dumps go ({@code spec.backup.objectStore}) or come from ({@code
 * spec.bootstrap.fromBackup.objectStore}). The keys are read from a Secret by the Jobs' and pods'
 * environment; the operator reads them only for a restore, to list the bucket and check that the
 * dump is there before it creates any pod.
 */
@Data
@NoArgsConstructor
@AllArgsConstructor
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.endpoint) && has(self.bucket) && has(self.credentialsSecret)",
    messageExpression =
        "'objectStore needs '"
            + " + (has(self.endpoint) ? '' : 'endpoint (e.g. https://s3.eu-west-1.amazonaws.com) ')"
            + " + (has(self.bucket) ? '' : 'bucket (the bucket the dumps go to) ')"
            + " + (has(self.credentialsSecret) ? '' : 'credentialsSecret (a Secret with"
            + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) ')",
    reason = "FieldValueRequired")
public class ObjectStoreSpec {
  /** http(s)://host[:port], no path: the bucket is addressed by path (path-style requests). */
  public static final String ENDPOINT_PATTERN =
      "^https?://([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?([.][a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*"
          + "|[[][0-9a-fA-F:]+[]])(:[0-9]{1,5})?/?$";

  /** S3's bucket naming rules: 3 to 63 lower-case letters, digits, dots and hyphens. */
  public static final String BUCKET_PATTERN = "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$";

  /** A key prefix: safe characters only, no leading slash, no "..". */
  public static final String PREFIX_PATTERN = "^([A-Za-z0-9_.=-]+/)*[A-Za-z0-9_.=-]*$";

  @JsonPropertyDescription(
      "The S3 endpoint, http(s)://host[:port] without a path, e.g."
          + " https://s3.eu-west-1.amazonaws.com or http://minio.storage:9000. Requests are"
          + " path-style and signed with AWS Signature V4 (curl 7.75 or newer in the image).")
  @Size(max = 255)
  @ValidationRule(
      value = "self.matches('" + ENDPOINT_PATTERN + "')",
      messageExpression =
          "'objectStore.endpoint must be http(s)://host[:port] without a path: ' + self",
      reason = "FieldValueInvalid")
  private String endpoint;

  @JsonPropertyDescription("The bucket (3 to 63 lower-case letters, digits, '.' and '-').")
  @Size(max = 63)
  @ValidationRule(
      value = "self.matches('" + BUCKET_PATTERN + "')",
      messageExpression =
          "'objectStore.bucket must be 3 to 63 lower-case letters, digits, \\'.\\' and \\'-\\',"
              + " starting and ending with a letter or digit: ' + self",
      reason = "FieldValueInvalid")
  private String bucket;

  @JsonPropertyDescription(
      "Key prefix inside the bucket, e.g. prod/orders; dumps are stored as"
          + " <prefix>/<database>-<UTC timestamp>.sql.gz. Use distinct prefixes for Databases of"
          + " the same name.")
  @Size(max = 256)
  @ValidationRule(
      value = "self.matches('" + PREFIX_PATTERN + "') && !self.contains('..')",
      messageExpression =
          "'objectStore.prefix may hold letters, digits, \\'_.=-\\' and \\'/\\' between"
              + " segments, without a leading \\'/\\' or \\'..\\': ' + self",
      reason = "FieldValueInvalid")
  private String prefix;

  @JsonPropertyDescription("The region the requests are signed for. Default us-east-1.")
  @Default("us-east-1")
  @Size(max = 64)
  @ValidationRule(
      value = "self.matches('^[a-z0-9-]+$')",
      messageExpression = "'objectStore.region must be lower-case letters, digits and -: ' + self",
      reason = "FieldValueInvalid")
  private String region = "us-east-1";

  @JsonPropertyDescription(
      "Name of a Secret in the Database's namespace with the keys AWS_ACCESS_KEY_ID and"
          + " AWS_SECRET_ACCESS_KEY. The backup Jobs and restoring pods read it; for"
          + " bootstrap.fromBackup the operator too, to check that the dump is there.")
  @Size(max = 253)
  @ValidationRule(
      value = "self.matches('" + DatabaseSpec.DNS_SUBDOMAIN + "')",
      messageExpression = "'objectStore.credentialsSecret must name a Secret: ' + self",
      reason = "FieldValueInvalid")
  private String credentialsSecret;

  /** The Secret keys, as the AWS tools name them. */
  public static final String ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID";

  public static final String SECRET_ACCESS_KEY = "AWS_SECRET_ACCESS_KEY";
}
