package io.skipstone.table

/**
 * One live data file of a managed table, as a version lists it.
 *
 * @param path             relative to the table root (so a table can be moved or mounted elsewhere)
 * @param modificationTime what the file system reported when the file was committed; with `size`
 *                         it is how skipping metadata recognises the file (stale metadata is never used)
 * @param block            the layout tree's leaf the file's rows belong to
 */
case class DataFile(path: String, size: Long, modificationTime: Long, block: Long, rows: Long)
