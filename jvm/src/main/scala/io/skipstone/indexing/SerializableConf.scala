package io.skipstone.indexing

import java.io.{ObjectInputStream, ObjectOutputStream}

import org.apache.hadoop.conf.Configuration

/** Ships the session's Hadoop settings (credentials, file systems) to executors. */
class SerializableConf(@transient var value: Configuration) extends Serializable {
  private def writeObject(out: ObjectOutputStream): Unit = {
    out.defaultWriteObject()
    value.write(out)
  }
  private def readObject(in: ObjectInputStream): Unit = {
    // Fields of a deserialized object start unset; the Writable contract fills a fresh one.
    value = new Configuration(false)
    value.readFields(in)
  }
}
