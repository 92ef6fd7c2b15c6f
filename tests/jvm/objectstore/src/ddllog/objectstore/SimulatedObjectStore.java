package ddllog.objectstore;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BufferedFSInputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * A Hadoop {@code FileSystem} with S3's semantics over a local directory, for the tests: {@code s3sim://BUCKET/KEY}
 * is the file {@code <fs.s3sim.root>/BUCKET/KEY}. Registered with {@code fs.s3sim.impl=}this class.
 *
 * <ul>
 *   <li>Rename is a copy then a delete, object by object (one COPY request each): a directory rename takes as long
 *       as its files, and a process that dies in the middle leaves both halves (some objects at the source, some at
 *       the destination). Every rename is counted by kind ({@link Calls#DATA} or {@link Calls#STAGING}) and
 *       journaled.
 *   <li>No real directories. A directory is a prefix: it exists while some object's key has it. {@code mkdirs}
 *       makes a marker object the way S3A does; here the marker of a directory is its local directory when that is
 *       empty. Deleting an object keeps its parent directory (S3A then writes a marker for the parent), so, as on
 *       S3A, directories vanish only when deleted or renamed.
 *   <li>An object is written whole on {@code close()} (one PUT) and invisible before; {@code hflush}/{@code hsync}
 *       throw {@link UnsupportedOperationException} as S3A's do (HADOOP-17597). No append.
 *   <li>Listing is strongly consistent (S3 since December 2020).
 *   <li>{@code fs.s3sim.latency.ms} (or {@link Faults#setLatencyMillis}): a wait per request, i.e. per call, plus
 *       one per object a rename copies, per page of 250 objects a delete removes and per page of 1,000 entries a
 *       listing returns. {@code fs.s3sim.faults} (or {@link Faults#inject}): injected failures.
 * </ul>
 */
public class SimulatedObjectStore extends FileSystem {
  public static final String SCHEME = "s3sim";
  public static final String ROOT_KEY = "fs.s3sim.root";
  public static final String LATENCY_KEY = "fs.s3sim.latency.ms";
  public static final String FAULTS_KEY = "fs.s3sim.faults";
  static final String UPLOADS = ".s3sim-uploads";
  private static final long BLOCK_SIZE = 32L << 20;
  private static final int DELETE_PAGE = 250;
  private static final int LIST_PAGE = 1000;
  private static final Set<String> CONFIGURED_FAULTS = Collections.synchronizedSet(new HashSet<>());

  private URI uri;
  private java.nio.file.Path bucket;
  private java.nio.file.Path uploads;
  private Path workingDirectory;
  private String user;

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    String bucketName = name.getAuthority();
    if (bucketName == null || bucketName.isEmpty()) {
      throw new IOException("a " + SCHEME + " URI names its bucket: " + SCHEME + "://BUCKET/KEY, not " + name);
    }
    String root = conf.getTrimmed(ROOT_KEY);
    if (root == null || root.isEmpty()) {
      throw new IOException(ROOT_KEY + " is not set: the local directory that holds the buckets of " + SCHEME);
    }
    java.nio.file.Path rootPath = Paths.get(root).toAbsolutePath().normalize();
    uri = URI.create(SCHEME + "://" + bucketName);
    bucket = rootPath.resolve(bucketName);
    uploads = rootPath.resolve(UPLOADS);
    Files.createDirectories(bucket);
    Files.createDirectories(uploads);
    user = System.getProperty("user.name");
    workingDirectory = makeQualified(new Path("/user/" + user));
    String latency = conf.getTrimmed(LATENCY_KEY);
    if (latency != null && !latency.isEmpty()) {
      Faults.setLatencyMillis(Long.parseLong(latency));
    }
    String faults = conf.getTrimmed(FAULTS_KEY);
    if (faults != null && CONFIGURED_FAULTS.add(faults)) {  // once per JVM, however many instances Hadoop makes
      Faults.inject(faults);
    }
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public URI getUri() {
    return uri;
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDirectory;
  }

  @Override
  public void setWorkingDirectory(Path directory) {
    workingDirectory = makeQualified(directory);
  }

  @Override
  public long getDefaultBlockSize(Path path) {
    return BLOCK_SIZE;
  }

  @Override
  public String getCanonicalServiceName() {
    return null;  // no delegation tokens
  }

  // ------------------------------------------------------------------ reads

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    request("open", path);
    java.nio.file.Path local = local(key(path));
    if (!Files.isRegularFile(local)) {
      throw new FileNotFoundException(path + (Files.isDirectory(local) ? " is a directory" : ": no such object"));
    }
    return new FSDataInputStream(new BufferedFSInputStream(new ObjectInput(local), Math.max(bufferSize, 4096)));
  }

  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    request("getFileStatus", path);
    String key = key(path);
    FileStatus status = status(key, local(key));
    if (status == null) {
      throw new FileNotFoundException(path + ": no such object or prefix");
    }
    return status;
  }

  @Override
  public FileStatus[] listStatus(Path path) throws IOException {
    request("listStatus", path);
    String key = key(path);
    java.nio.file.Path local = local(key);
    FileStatus own = existing(path, key, local);
    if (!own.isDirectory()) {
      return new FileStatus[] {own};
    }
    List<FileStatus> found = new ArrayList<>();
    try (DirectoryStream<java.nio.file.Path> children = Files.newDirectoryStream(local)) {
      for (java.nio.file.Path child : children) {
        FileStatus status = status(child(key, child.getFileName().toString()), child);
        if (status != null) {
          found.add(status);
        }
      }
    }
    found.sort((a, b) -> a.getPath().compareTo(b.getPath()));
    pages(found.size(), LIST_PAGE);
    return found.toArray(new FileStatus[0]);
  }

  /**
   * Recursive: one flat listing of every object under the prefix (a page per {@code LIST_PAGE} keys), as S3A's
   * {@code listFiles} lists: a store has no directories to walk. Not recursive: Hadoop's own, a {@code listStatus}.
   */
  @Override
  public RemoteIterator<LocatedFileStatus> listFiles(Path path, boolean recursive) throws IOException {
    if (!recursive) {
      return super.listFiles(path, false);
    }
    request("listFiles", path);
    String key = key(path);
    java.nio.file.Path local = local(key);
    FileStatus own = existing(path, key, local);
    List<LocatedFileStatus> found = new ArrayList<>();
    if (!own.isDirectory()) {
      found.add(new LocatedFileStatus(own, null));
    } else {
      List<java.nio.file.Path> objects;
      try (Stream<java.nio.file.Path> walked = Files.walk(local)) {
        objects = walked.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
      }
      for (java.nio.file.Path object : objects) {
        String relative = local.relativize(object).toString().replace(java.io.File.separatorChar, '/');
        FileStatus status = status(child(key, relative), object);
        if (status != null) {
          found.add(new LocatedFileStatus(status, null));
        }
      }
    }
    pages(found.size(), LIST_PAGE);
    Iterator<LocatedFileStatus> each = found.iterator();
    return new RemoteIterator<LocatedFileStatus>() {
      @Override
      public boolean hasNext() {
        return each.hasNext();
      }

      @Override
      public LocatedFileStatus next() {
        return each.next();
      }
    };
  }

  // ------------------------------------------------------------------ writes

  @Override
  public FSDataOutputStream create(Path path, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    request("create", path);
    String key = key(path);
    if (key.isEmpty()) {
      throw new IOException("cannot create the root of bucket " + uri);
    }
    java.nio.file.Path local = local(key);
    if (Files.isDirectory(local)) {
      throw new org.apache.hadoop.fs.FileAlreadyExistsException(path + " is a directory");
    }
    if (!overwrite && Files.exists(local)) {
      throw new org.apache.hadoop.fs.FileAlreadyExistsException(path + " already exists");
    }
    requireNoFileAbove(key, path);
    java.nio.file.Path staging = Files.createTempFile(uploads, "upload-", ".part");
    return new FSDataOutputStream(new ObjectOutput(this, staging, local, key), statistics);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path path, FsPermission permission, boolean overwrite,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    Path parent = makeQualified(path).getParent();
    if (parent != null && !Files.isDirectory(local(key(parent)))) {
      throw new FileNotFoundException(parent + ": no such directory (createNonRecursive)");
    }
    return create(path, permission, overwrite, bufferSize, replication, blockSize, progress);
  }

  /** The PUT of a closed stream: the object appears whole at its key. */
  void publish(java.nio.file.Path staging, java.nio.file.Path target, String key) throws IOException {
    try {
      request("put", null);
      if (Files.isDirectory(target)) {
        throw new org.apache.hadoop.fs.FileAlreadyExistsException(key + " became a directory during the upload");
      }
      Files.createDirectories(target.getParent());
      Files.move(staging, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(staging);
    }
  }

  @Override
  public FSDataOutputStream append(Path path, int bufferSize, Progressable progress) throws IOException {
    throw new UnsupportedOperationException("Append is not supported by " + getClass().getSimpleName());
  }

  @Override
  public boolean mkdirs(Path path, FsPermission permission) throws IOException {
    request("mkdirs", path);
    String key = key(path);
    java.nio.file.Path local = local(key);
    if (Files.isRegularFile(local)) {
      throw new org.apache.hadoop.fs.FileAlreadyExistsException(path + " is a file");
    }
    requireNoFileAbove(key, path);
    Files.createDirectories(local);  // the marker
    return true;
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    Faults.Rule rule = request("delete", path);
    String key = key(path);
    java.nio.file.Path local = local(key);
    if (key.isEmpty() || !Files.exists(local)) {
      return false;  // S3A refuses to delete a bucket's root
    }
    List<java.nio.file.Path> objects = Files.isDirectory(local) ? objectsUnder(local) : List.of(local);
    if (Files.isDirectory(local) && !recursive && hasChildren(local)) {
      throw new PathIsNotEmptyDirectoryException(path.toString());
    }
    long deleted = 0;
    for (java.nio.file.Path object : objects) {
      if (rule != null && rule.objects == deleted) {
        throw Faults.fire(rule, "delete of " + path + " after " + deleted + " objects");
      }
      Files.deleteIfExists(object);
      deleted++;
    }
    if (rule != null) {
      throw Faults.fire(rule, "delete of " + path + " after " + deleted + " objects");
    }
    removeTree(local);
    pages(deleted, DELETE_PAGE);
    Calls.add("delete.objects", deleted);
    return true;
  }

  @Override
  public boolean rename(Path source, Path target) throws IOException {
    String sourceKey = key(source);
    String kind = Calls.renameKind(sourceKey);
    Faults.Rule rule = request("rename", source);
    Faults.Rule kindRule = due("rename." + kind);
    rule = rule != null ? rule : kindRule;
    String targetKey = key(target);
    java.nio.file.Path from = local(sourceKey);
    if (sourceKey.isEmpty() || !Files.exists(from)) {
      return false;
    }
    if (sourceKey.equals(targetKey)) {
      return Files.isRegularFile(from);
    }
    if (targetKey.startsWith(sourceKey + "/")) {
      return false;  // into itself
    }
    java.nio.file.Path to = local(targetKey);
    if (Files.isRegularFile(to)) {
      return false;
    }
    if (Files.isDirectory(to)) {
      targetKey = child(targetKey, from.getFileName().toString());
      to = local(targetKey);
      if (Files.exists(to)) {
        return false;
      }
    }
    String parent = parentKey(targetKey);
    if (!parent.isEmpty() && Files.isRegularFile(local(parent))) {
      return false;
    }
    boolean directory = Files.isDirectory(from);
    List<java.nio.file.Path> objects = directory ? objectsUnder(from) : List.of(from);
    String what = "rename of " + source + " to " + target;
    if (rule != null && rule.objects <= 0) {
      throw Faults.fire(rule, what + " before its first copy");
    }
    long moved = 0;
    for (java.nio.file.Path object : objects) {
      java.nio.file.Path destination = directory ? to.resolve(from.relativize(object).toString()) : to;
      copyObject(object, destination);
      moved++;
      if (rule != null && rule.objects == moved) {  // copied, its source not deleted yet: it is at both places
        throw Faults.fire(rule, what + " after " + moved + " copies, the last one's source not deleted");
      }
      Files.delete(object);
    }
    if (rule != null) {
      throw Faults.fire(rule, what + " after every copy, before the source's directory was removed");
    }
    if (directory) {
      copyMarkers(from, to);
      removeTree(from);
    }
    Calls.add("rename.objects", moved);
    Calls.add("rename." + kind + ".objects", moved);
    Calls.journal(kind, moved, makeQualified(source).toString(), makeQualified(new Path("/" + targetKey)).toString());
    return true;
  }

  // ------------------------------------------------------------------ helpers

  /** Count one request of {@code operation}, wait its latency; the fault rule due now, if any (failing at once
   * when it moves no object). */
  private Faults.Rule request(String operation, Path path) throws IOException {
    Faults.Rule rule = due(operation);
    Faults.call();
    if (rule != null && (rule.objects < 0 || !(operation.equals("rename") || operation.equals("delete")))) {
      throw Faults.fire(rule, operation + " of " + path);
    }
    return rule;
  }

  private static Faults.Rule due(String operation) {
    return Faults.due(operation, Calls.count(operation));
  }

  /** The latency of the pages beyond a call's first. */
  private static void pages(long entries, int page) {
    for (long extra = (entries - 1) / page; extra > 0; extra--) {
      Faults.call();
    }
  }

  /** The key of {@code path} ("" for the bucket's root), without leading or trailing slash. */
  String key(Path path) throws IOException {
    Path qualified = makeQualified(path);
    String text = qualified.toUri().getPath();
    String key = text.replaceAll("^/+", "").replaceAll("/+$", "");
    for (String part : key.split("/")) {
      if (part.equals("..") || part.equals(".")) {
        throw new IOException("a key may not hold " + part + ": " + path);
      }
    }
    return key;
  }

  java.nio.file.Path local(String key) {
    return key.isEmpty() ? bucket : bucket.resolve(key);
  }

  private static String child(String key, String name) {
    return key.isEmpty() ? name : key + "/" + name;
  }

  private static String parentKey(String key) {
    int slash = key.lastIndexOf('/');
    return slash < 0 ? "" : key.substring(0, slash);
  }

  /** The status of {@code key} (an object or a prefix); a listing of neither fails as S3A's does. */
  private FileStatus existing(Path path, String key, java.nio.file.Path local) throws IOException {
    FileStatus own = status(key, local);
    if (own == null) {
      throw new FileNotFoundException(path + ": no such object or prefix");
    }
    return own;
  }

  private FileStatus status(String key, java.nio.file.Path local) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(local, BasicFileAttributes.class);
    } catch (NoSuchFileException missing) {
      return null;
    }
    Path path = makeQualified(new Path("/" + key));
    if (attributes.isDirectory()) {
      return new FileStatus(0, true, 1, 0, attributes.lastModifiedTime().toMillis(), 0, null, user, user, path);
    }
    return new FileStatus(attributes.size(), false, 1, BLOCK_SIZE, attributes.lastModifiedTime().toMillis(), 0,
        null, user, user, path);
  }

  private void requireNoFileAbove(String key, Path path) throws IOException {
    for (String parent = parentKey(key); !parent.isEmpty(); parent = parentKey(parent)) {
      if (Files.isRegularFile(local(parent))) {
        throw new ParentNotDirectoryException(path + ": " + parent + " is an object, not a prefix");
      }
    }
  }

  /** Every object (file) under a local directory, in key order. */
  private static List<java.nio.file.Path> objectsUnder(java.nio.file.Path directory) throws IOException {
    try (Stream<java.nio.file.Path> walk = Files.walk(directory)) {
      return walk.filter(Files::isRegularFile).sorted().collect(java.util.stream.Collectors.toList());
    }
  }

  private static boolean hasChildren(java.nio.file.Path directory) throws IOException {
    try (Stream<java.nio.file.Path> children = Files.list(directory)) {
      return children.findAny().isPresent();
    }
  }

  /** One COPY request: the object appears whole at {@code target}. */
  private void copyObject(java.nio.file.Path source, java.nio.file.Path target) throws IOException {
    Faults.call();
    Calls.count("copy");
    Files.createDirectories(target.getParent());
    java.nio.file.Path staging = Files.createTempFile(uploads, "copy-", ".part");
    try {
      Files.copy(source, staging, StandardCopyOption.REPLACE_EXISTING);
      Files.move(staging, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(staging);
    }
  }

  /** The markers (empty directories) under {@code from}, made under {@code to} too. */
  private static void copyMarkers(java.nio.file.Path from, java.nio.file.Path to) throws IOException {
    try (Stream<java.nio.file.Path> walk = Files.walk(from)) {
      for (java.nio.file.Path directory : walk.filter(Files::isDirectory).collect(
          java.util.stream.Collectors.toList())) {
        if (!hasChildren(directory)) {
          Files.createDirectories(to.resolve(from.relativize(directory).toString()));
        }
      }
    }
    Files.createDirectories(to);
  }

  /** Remove a local directory tree whose objects are gone (or any tree: the directories of a deleted prefix). */
  private static void removeTree(java.nio.file.Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      Files.deleteIfExists(directory);
      return;
    }
    try (Stream<java.nio.file.Path> walk = Files.walk(directory)) {
      List<java.nio.file.Path> all = walk.sorted(Collections.reverseOrder()).collect(
          java.util.stream.Collectors.toList());
      for (java.nio.file.Path entry : all) {
        Files.deleteIfExists(entry);
      }
    }
  }
}
