// The JVM developers' build of Skipstone's Scala module (same sources as the pip build).
// `pip install .` / `make` compile these sources with the Scala compiler bundled in pyspark
// (jvm/build_jar.py), because Maven Central is not reachable everywhere Skipstone installs.
val sparkVersion = "4.3.0"

ThisBuild / organization := "io.skipstone"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"

lazy val skipstone = (project in file("jvm"))
  .settings(
    name := "skipstone",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
    ),
    scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature"),
    // what differs between Spark minors: the folder for sparkVersion's (jvm/build_jar.py picks by pyspark)
    Compile / unmanagedSourceDirectories += baseDirectory.value / "src" / "main" / "spark-4.3",
    Compile / packageBin / artifactPath := baseDirectory.value / ".." / "python" / "skipstone" / "jars" / "skipstone.jar",
  )
