// Takes leases of Curator's own InterProcessSemaphoreV2, on the same path as zkwire's semaphores, for the interop
// test (lock_curator_test.cpp). Usage:
//   CuratorSemaphoreWorker <connect> <semaphore path> <max leases> <holders path> <rounds> <threads> <hold ms>
// Each of <threads> threads (one semaphore object each, one shared client) takes a lease <rounds> times. While
// holding it, the thread adds one to the shared holders node (a compare-and-set on its version, retried: other
// holders may legitimately be inside too), checks the count it wrote is at most <max leases> (more is an overlap),
// waits, and takes its one back off. Prints "grants=N violations=M max=K" (K: the highest count this process
// wrote) and exits 1 on any violation.
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

public final class CuratorSemaphoreWorker {
  private static final AtomicInteger grants = new AtomicInteger();
  private static final AtomicInteger violations = new AtomicInteger();
  private static final AtomicInteger maxSeen = new AtomicInteger();

  // Adds `delta` to the holders count and returns the count written.
  private static long add(CuratorFramework zk, String holders, long delta) throws Exception {
    for (;;) {
      Stat stat = new Stat();
      byte[] data = zk.getData().storingStatIn(stat).forPath(holders);
      long value = Long.parseLong(new String(data, StandardCharsets.UTF_8)) + delta;
      try {
        zk.setData().withVersion(stat.getVersion()).forPath(holders,
            Long.toString(value).getBytes(StandardCharsets.UTF_8));
        return value;
      } catch (KeeperException.BadVersionException e) {
        // another holder came or went meanwhile: read again
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String connect = args[0];
    String path = args[1];
    int maxLeases = Integer.parseInt(args[2]);
    String holders = args[3];
    int rounds = Integer.parseInt(args[4]);
    int threads = Integer.parseInt(args[5]);
    long holdMs = Long.parseLong(args[6]);
    CuratorFramework zk = CuratorFrameworkFactory.newClient(connect, 20000, 10000, new RetryNTimes(3, 500));
    zk.start();
    if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("not connected");
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int t = 0; t < threads; ++t) {
      Thread worker = new Thread(() -> {
        try {
          InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(zk, path, maxLeases);
          for (int round = 0; round < rounds; ++round) {
            Lease lease = semaphore.acquire(60, TimeUnit.SECONDS);
            if (lease == null) throw new IllegalStateException("no lease in 60 s");
            try {
              grants.incrementAndGet();
              long inside = add(zk, holders, 1);
              maxSeen.accumulateAndGet((int) inside, Math::max);
              if (inside > maxLeases) {
                violations.incrementAndGet();
                System.err.println("overlap: " + inside + " holders of " + maxLeases + " leases");
              }
              Thread.sleep(holdMs);
              add(zk, holders, -1);
            } finally {
              semaphore.returnLease(lease);
            }
          }
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      });
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) worker.join();
    zk.close();
    for (Throwable e : failures) e.printStackTrace();
    System.out.println("grants=" + grants.get() + " violations=" + violations.get() + " max=" + maxSeen.get());
    System.exit(violations.get() == 0 && failures.isEmpty() ? 0 : 1);
  }
}
