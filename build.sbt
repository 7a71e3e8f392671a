// The JVM developers' build of Skipstone's Scala module (same sources as the pip build).
// `pip install .` / `make` compile these sources with the Scala compiler bundled in pyspark
// (jvm/build_jar.py), so installing Skipstone needs no sbt. `sbt test` runs the ScalaTest suites
// of jvm/src/test, the same ones `make test-jvm` (jvm/run_jvm_tests.py) runs without sbt.
val sparkVersion = "4.3.0"
// Keep in step with SCALATEST in jvm/run_jvm_tests.py.
val scalatestVersion = "3.2.19"

ThisBuild / organization := "io.skipstone"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"

lazy val skipstone = (project in file("jvm"))
  .settings(
    name := "skipstone",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest-funsuite" % scalatestVersion % Test,
    ),
    scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature"),
    // what differs between Spark minors: the folder for sparkVersion's (jvm/build_jar.py picks by pyspark)
    Compile / unmanagedSourceDirectories += baseDirectory.value / "src" / "main" / "spark-4.3",
    Compile / packageBin / artifactPath := baseDirectory.value / ".." / "python" / "skipstone" / "jars" / "skipstone.jar",
    // Tests run Spark code in a forked JVM with the module options Spark's launcher passes on Java 17.
    Test / fork := true,
    Test / javaOptions ++= Seq("-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions", "--add-modules=jdk.incubator.vector",
      "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED", "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true") ++
      Seq("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio", "java.util",
        "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref", "sun.nio.ch", "sun.nio.cs",
        "sun.security.action", "sun.util.calendar").map(p => s"--add-opens=java.base/$p=ALL-UNNAMED"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
  )
