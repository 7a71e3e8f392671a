package io.skipstone.table

import java.util.concurrent.ConcurrentHashMap

/**
 * Named points between the steps of the table operations where tests make the operation die,
 * to prove that whatever step it dies after, the table stays readable with the right rows and
 * rerunning the operation completes. Off unless a test arms one; the names are listed in
 * docs/maintenance.md. Python tests arm them through skipstone.table.failpoints.
 */
object Failpoints {
  // Armed names and how many more passes through them to let by before failing.
  private val armed = new ConcurrentHashMap[String, Integer]()
  // Points armed to fail as an ordinary error (a full disk, a lost executor) rather than a kill.
  private val erring = ConcurrentHashMap.newKeySet[String]()
  // Points armed to run what another process does at that moment (deletes a file...) and go on.
  private val actions = new ConcurrentHashMap[String, Runnable]()

  /** The next time the operation reaches `name` after `skip` earlier passes, it fails. */
  def arm(name: String, skip: Int): Unit = { erring.remove(name); actions.remove(name); armed.put(name, skip) }
  def arm(name: String): Unit = arm(name, 0)
  /** As [[arm]], but the operation fails with an ordinary error there: its cleanup runs. */
  def armError(name: String, skip: Int): Unit = { arm(name, skip); erring.add(name) }
  /** As [[arm]], but the operation runs `action` there and carries on, as beside another process acting then. */
  def armAction(name: String, skip: Int, action: Runnable): Unit = { arm(name, skip); actions.put(name, action) }
  def disarmAll(): Unit = { armed.clear(); erring.clear(); actions.clear() }

  /** True (and disarmed) when the failpoint fires now. */
  def fires(name: String): Boolean = {
    var fired = false // set inside the atomic update below
    armed.computeIfPresent(name, (_, left) => if (left <= 0) { fired = true; null } else Integer.valueOf(left - 1))
    fired
  }

  /** Whether `name` is armed as an ordinary error (asked once it fired). */
  def isError(name: String): Boolean = erring.remove(name)

  /**
   * Dies here if a test armed `name`, as a killed process would (nothing is cleaned up), errs, or
   * runs the action armed with it.
   */
  def check(name: String): Unit = if (fires(name)) {
    Option(actions.remove(name)) match {
      case Some(action) => action.run()
      case None => if (isError(name)) throw new InjectedError(name) else throw new InjectedFailure(name)
    }
  }
}

/** The ordinary failure an error-armed failpoint injects: the operation's cleanup runs. */
class InjectedError(val point: String) extends RuntimeException(s"Skipstone failpoint $point (an injected error)")

/** The failure a failpoint injects; no code catches it, so nothing runs that a kill would not run. */
class InjectedFailure(val point: String) extends RuntimeException(s"Skipstone failpoint $point")
