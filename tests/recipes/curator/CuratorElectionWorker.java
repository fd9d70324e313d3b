// Takes part in a leader election with Curator's own recipes, on the same path as zkwire's participants, for the
// interop smoke test (election_interop_test.cpp). Usage:
//   CuratorElectionWorker <connect> <latch|selector> <path> <id> <stop file>
// latch: a LeaderLatch; selector: a LeaderSelector (its InterProcessMutex), not requeued. Prints, one line each:
// "leader ID" whenever the leader it sees (getLeader()) changes ("leader -" for none), "leads MS" when it leads
// (wall clock, ms), then waits for the stop file and prints "releasing MS" before it gives leadership up, and
// "closed" at the end.
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorElectionWorker {
  private static String seen = null;

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private static void report(Participant leader) {
    String id = leader.isLeader() ? leader.getId() : "-";
    if (!id.equals(seen)) say("leader " + id);
    seen = id;
  }

  public static void main(String[] args) throws Exception {
    String connect = args[0];
    String mode = args[1];
    String path = args[2];
    String id = args[3];
    Path stop = Paths.get(args[4]);
    CuratorFramework zk = CuratorFrameworkFactory.newClient(connect, 20000, 10000, new RetryNTimes(3, 500));
    zk.start();
    if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("not connected");
    if (mode.equals("latch")) {
      LeaderLatch latch = new LeaderLatch(zk, path, id);
      latch.start();
      while (!latch.hasLeadership()) {
        report(latch.getLeader());
        Thread.sleep(20);
      }
      say("leads " + System.currentTimeMillis());
      while (!Files.exists(stop)) {
        report(latch.getLeader());
        Thread.sleep(20);
      }
      say("releasing " + System.currentTimeMillis());
      latch.close();
    } else {
      CountDownLatch done = new CountDownLatch(1);
      LeaderSelector selector = new LeaderSelector(zk, path, new LeaderSelectorListenerAdapter() {
        @Override
        public void takeLeadership(CuratorFramework client) throws Exception {
          say("leads " + System.currentTimeMillis());
          while (!Files.exists(stop)) Thread.sleep(20);
          say("releasing " + System.currentTimeMillis());
          done.countDown();
        }
      });
      selector.setId(id);
      selector.start();
      while (done.getCount() > 0) {
        report(selector.getLeader());
        Thread.sleep(20);
      }
      selector.close();
    }
    zk.close();
    say("closed");
  }
}
