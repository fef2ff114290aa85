package dev.cellar.operator.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemReader;
import org.bouncycastle.util.io.pem.PemWriter;

/** PEM text in and out, for what Bouncy Castle reads and writes as DER. */
final class Pem {
  private Pem() {}

  /** The DER of the first PEM object of {@code pem}, which must be of {@code type}. */
  static byte[] read(String pem, String type) throws IOException {
    PemObject object;
    try (PemReader reader = new PemReader(new StringReader(pem))) {
      object = reader.readPemObject();
    }
    if (object == null || !type.equals(object.getType())) {
      throw new IOException("no PEM " + type);
    }
    return object.getContent();
  }

  static String write(String type, byte[] der) throws IOException {
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      writer.writeObject(new PemObject(type, der));
    }
    return out.toString();
  }
}
