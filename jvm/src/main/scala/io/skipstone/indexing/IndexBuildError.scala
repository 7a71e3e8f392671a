package io.skipstone.indexing

/**
 * A build request Skipstone refuses, with a message naming the table, column, index or option
 * at fault. Its own type (not IllegalArgumentException, which pyspark rewraps) so that every
 * caller, Python included, shows the message as it is.
 */
class IndexBuildError(message: String) extends RuntimeException(message)
