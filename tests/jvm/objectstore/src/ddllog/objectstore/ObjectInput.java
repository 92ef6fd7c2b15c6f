package ddllog.objectstore;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.apache.hadoop.fs.FSInputStream;

/** An object being read (its local file, opened once: what S3 GETs would return for it, seekable). */
final class ObjectInput extends FSInputStream {
  private final RandomAccessFile file;

  ObjectInput(Path path) throws IOException {
    this.file = new RandomAccessFile(path.toFile(), "r");
  }

  @Override
  public synchronized void seek(long position) throws IOException {
    if (position < 0) {
      throw new EOFException("cannot seek to a negative offset");
    }
    file.seek(position);
  }

  @Override
  public synchronized long getPos() throws IOException {
    return file.getFilePointer();
  }

  @Override
  public boolean seekToNewSource(long target) {
    return false;
  }

  @Override
  public synchronized int read() throws IOException {
    return file.read();
  }

  @Override
  public synchronized int read(byte[] bytes, int offset, int length) throws IOException {
    return file.read(bytes, offset, length);
  }

  @Override
  public synchronized int available() throws IOException {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, file.length() - file.getFilePointer()));
  }

  @Override
  public synchronized void close() throws IOException {
    file.close();
  }
}
