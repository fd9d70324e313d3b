// Contends for a lock with Curator's own recipes, on the same lock directory as zkwire's locks, for the interop
// tests (lock_curator_test.cpp). Usage:
//   CuratorLockWorker <connect> <mutex|read|write|mixed> <lock dir> <counter path> <rounds> <hold ms>
// Each round takes the lock (mixed: every third round the write side, else the read side) and checks the shared
// counter node while holding it: an exclusive holder reads it, waits, and writes it back plus one with the version
// it read (a write by anyone else meanwhile fails with BadVersion: an overlap); a reader reads it twice with a
// wait in between (a change is a writer inside a read hold). Prints "grants=N violations=M" and exits 1 on any
// violation.
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

public final class CuratorLockWorker {
  private static int violations = 0;

  private static void exclusive(CuratorFramework zk, String counter, long holdMs) throws Exception {
    Stat stat = new Stat();
    byte[] data = zk.getData().storingStatIn(stat).forPath(counter);
    Thread.sleep(holdMs);
    long value = Long.parseLong(new String(data, "UTF-8")) + 1;
    try {
      zk.setData().withVersion(stat.getVersion()).forPath(counter, Long.toString(value).getBytes("UTF-8"));
    } catch (KeeperException.BadVersionException e) {
      ++violations;
      System.err.println("overlap: the counter changed while we held the exclusive lock");
    }
  }

  private static void shared(CuratorFramework zk, String counter, long holdMs) throws Exception {
    Stat before = zk.checkExists().forPath(counter);
    Thread.sleep(holdMs);
    Stat after = zk.checkExists().forPath(counter);
    if (before.getVersion() != after.getVersion()) {
      ++violations;
      System.err.println("overlap: the counter changed while we held the read lock");
    }
  }

  public static void main(String[] args) throws Exception {
    String connect = args[0];
    String mode = args[1];
    String dir = args[2];
    String counter = args[3];
    int rounds = Integer.parseInt(args[4]);
    long holdMs = Long.parseLong(args[5]);
    CuratorFramework zk = CuratorFrameworkFactory.newClient(connect, 20000, 10000, new RetryNTimes(3, 500));
    zk.start();
    if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("not connected");
    InterProcessMutex mutex = new InterProcessMutex(zk, dir);
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(zk, dir);
    int grants = 0;
    for (int round = 0; round < rounds; ++round) {
      boolean write = mode.equals("write") || (mode.equals("mixed") && round % 3 == 0);
      boolean read = mode.equals("read") || (mode.equals("mixed") && !write);
      InterProcessMutex lock = mode.equals("mutex") ? mutex : (write ? rw.writeLock() : rw.readLock());
      if (!lock.acquire(60, TimeUnit.SECONDS)) throw new IllegalStateException("not acquired in 60 s");
      try {
        ++grants;
        if (read) {
          shared(zk, counter, holdMs);
        } else {
          exclusive(zk, counter, holdMs);
        }
      } finally {
        lock.release();
      }
    }
    zk.close();
    System.out.println("grants=" + grants + " violations=" + violations);
    System.exit(violations == 0 ? 0 : 1);
  }
}
