package io.skipstone.table

import org.apache.hadoop.fs.FileStatus

import io.skipstone.metadata.FileIdentity

/**
 * Another writer's file whose rows a version holds in its own files. Known by its content
 * identity, not its name alone: a writer that replaces `export.parquet` with new rows under the
 * same name has written a new foreign file, which is read (and absorbed) again.
 *
 * @param path     the name relative to the root
 * @param identity size, modification time and fingerprint when absorbed; None for entries of
 *                 logs written before identities were recorded, which match by name alone
 */
final case class AbsorbedFile(path: String, identity: Option[FileIdentity]) {
  /** True when `status` (a file named `path`) still holds the bytes that were absorbed. */
  def matches(status: FileStatus): Boolean = identity.forall(_ == FileIdentity.of(status))
}

object AbsorbedFile {
  def of(path: String, status: FileStatus): AbsorbedFile = AbsorbedFile(path, Some(FileIdentity.of(status)))
}
