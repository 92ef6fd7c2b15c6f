package ddllog.objectstore;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;

/**
 * An object being uploaded: the bytes go to a staging file outside the bucket, and the object appears whole at its
 * key on {@link #close} (one PUT), as on S3; until then nobody sees it. Not Syncable, as S3A's streams are not
 * (HADOOP-17597), and it says it has neither capability: {@code hsync} throws, as S3A's does in its strict mode
 * ({@code fs.s3a.downgrade.syncable.exceptions=false}, "fail fast if anyone tries to run algorithms expecting
 * Syncable to persist data"); {@code hflush} is counted and does nothing, as S3A's since Hadoop 3.4.2 (Parquet
 * 1.15.2, pyspark's, calls it in every {@code close()}: parquet-java GH-3203), so Spark's writers work.
 */
final class ObjectOutput extends OutputStream implements Syncable, StreamCapabilities {
  static final String NOT_SYNCABLE = "S3A streams are not Syncable. See HADOOP-17597.";

  private final SimulatedObjectStore store;
  private final Path staging;
  private final Path target;
  private final String key;
  private final OutputStream out;
  private boolean closed;

  ObjectOutput(SimulatedObjectStore store, Path staging, Path target, String key) throws IOException {
    this.store = store;
    this.staging = staging;
    this.target = target;
    this.key = key;
    this.out = new BufferedOutputStream(Files.newOutputStream(staging), 1 << 16);
  }

  @Override
  public void write(int b) throws IOException {
    out.write(b);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    out.write(bytes, offset, length);
  }

  @Override
  public void flush() throws IOException {
    out.flush();  // into the staging file only: nothing is visible before close
  }

  @Override
  public void hflush() {
    Calls.count("hflush");  // nothing visible, nothing durable
  }

  @Override
  public void hsync() {
    Calls.count("hsync");
    throw new UnsupportedOperationException(NOT_SYNCABLE);
  }

  @Override
  public boolean hasCapability(String capability) {
    return false;
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    out.close();
    store.publish(staging, target, key);
  }
}
