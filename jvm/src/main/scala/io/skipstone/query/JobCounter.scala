package io.skipstone.query

import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.SparkContext
import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}

/**
 * Counts the Spark jobs started while a piece of driver code runs: planning must start none.
 *
 * Listeners hear of jobs asynchronously, so after the code a marker job is run and the count
 * is read once the marker's start has been heard: events reach a listener in order, so every
 * job started before the marker has been counted by then.
 */
object JobCounter {
  private val MarkerProperty = "skipstone.jobCounterMarker"

  /** Jobs started while `df`'s plan is optimized (analysis has already happened). */
  def duringOptimization(df: DataFrame): Int =
    around(df.sparkSession.sparkContext)(df.asInstanceOf[ClassicDataset[_]].queryExecution.optimizedPlan)._2

  /** Jobs started while `df` is collected: the counter's own check that it sees jobs. */
  def duringExecution(df: DataFrame): Int = around(df.sparkSession.sparkContext)(df.collect())._2

  def around[T](sc: SparkContext)(body: => T): (T, Int) = {
    val started = new AtomicInteger(0)
    val markerSeen = new java.util.concurrent.CountDownLatch(1)
    val marker = java.util.UUID.randomUUID().toString
    val listener = new SparkListener {
      override def onJobStart(e: SparkListenerJobStart): Unit =
        if (Option(e.properties).flatMap(p => Option(p.getProperty(MarkerProperty))).contains(marker)) markerSeen.countDown()
        else started.incrementAndGet()
    }
    sc.addSparkListener(listener)
    try {
      val result = body
      val previous = sc.getLocalProperty(MarkerProperty)
      sc.setLocalProperty(MarkerProperty, marker)
      try sc.parallelize(Seq(1), 1).count() finally sc.setLocalProperty(MarkerProperty, previous)
      if (!markerSeen.await(60, java.util.concurrent.TimeUnit.SECONDS))
        throw new IllegalStateException("the listener bus did not deliver the marker job within 60 s")
      (result, started.get())
    } finally sc.removeSparkListener(listener)
  }
}
