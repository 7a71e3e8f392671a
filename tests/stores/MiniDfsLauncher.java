import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Runs Hadoop's MiniDFSCluster (a NameNode and one DataNode in this JVM, on free ports) for the
 * store suite's HDFS tests, until its standard input closes: the test process that started it
 * holds the other end, so the cluster stops with the tests however they end.
 *
 * Java runs this file without a compile step (tests/stores/hdfs_cluster.py starts it):
 *
 *   java -cp <hadoop-client-minicluster, hadoop-client-api, -runtime, ...> MiniDfsLauncher.java BASE_DIR URI_FILE
 *
 * BASE_DIR holds the cluster's blocks and edits; URI_FILE receives the file system's URI
 * (hdfs://127.0.0.1:PORT) once the cluster serves, written whole (renamed into place).
 */
public class MiniDfsLauncher {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: MiniDfsLauncher BASE_DIR URI_FILE");
            System.exit(2);
        }
        Configuration conf = new HdfsConfiguration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(args[0]).getAbsolutePath());
        // the tests' user writes anywhere, as on a laptop's cluster; commits are what is tested
        conf.setBoolean("dfs.permissions.enabled", false);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).format(true).build();
        try {
            cluster.waitActive();
            File uriFile = new File(args[1]);
            File partial = new File(uriFile.getPath() + ".partial");
            Files.write(partial.toPath(), cluster.getURI().toString().getBytes(StandardCharsets.UTF_8));
            Files.move(partial.toPath(), uriFile.toPath(), StandardCopyOption.ATOMIC_MOVE);
            while (System.in.read() != -1) {
                // whatever the tests write is ignored; the end of the stream stops the cluster
            }
        } finally {
            cluster.shutdown(true);
        }
    }
}
