// The Curator side of bench/election_compare.py: Apache Curator's LeaderLatch (and LeaderSelector) failover, timed
// the way the script times zkwire's election (bench/election_bench.cpp). Compiled by the script at run time (javac,
// Debian's libcurator-*-java jars on the class path).
//
//   java CuratorElectionBench SERVERS handoff latch|selector COUNT WARMUP SETTLE_MS
//       Two participants, each with a session of its own, on one election path; the leader leaves, the other one
//       leads, the one that left joins again behind it, and so on, COUNT times after WARMUP untimed ones. Timed:
//       from the call that ends the leadership (LeaderLatch.close(); for a selector, letting takeLeadership return)
//       to the moment the other participant's code is told it leads (LeaderLatchListener.isLeader; the start of
//       takeLeadership). After each handoff the participant that left joins again and gets SETTLE_MS untimed to
//       queue (create its node, list, watch its predecessor), so that every handoff starts from a settled queue; the
//       follower's client also watches the leader's node (checkExists) to note when the notification of its
//       deletion arrives. Prints three JSON lines {"op":OP,"count":N,"p50_us":X,"p99_us":X,"mean_us":X}: handoff
//       (the whole), notified (leave -> the follower's client hears of the deletion) and after_notified (that ->
//       told), as bench/election_bench.cpp does.
//   java CuratorElectionBench SERVERS participant latch|selector PATH SESSION_MS
//       One participant with a session of SESSION_MS: prints "joined" once its node exists, then "leader NS" when it
//       is told it leads (NS: System.nanoTime, CLOCK_MONOTONIC on Linux, which the script reads too), and stays
//       until it is killed or its stdin closes. The script kills one with SIGKILL and times the next one.
//
// Everything happens under /curator-election-bench-<random> (handoff; removed at the end) or PATH. Exit status 1 with
// a message on stderr on any failure.
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.Watcher;

public final class CuratorElectionBench {
  private CuratorElectionBench() {}

  private static CuratorFramework connect(String servers, int sessionMs) throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.builder()
                                  .connectString(servers)
                                  .sessionTimeoutMs(sessionMs)
                                  .connectionTimeoutMs(10000)
                                  .retryPolicy(new RetryNTimes(3, 100))
                                  .build();
    client.start();
    if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("no session with " + servers + " within 15 s");
    }
    return client;
  }

  // One participant on one session: join() queues it, leave() ends its leadership (or its wait), and led() waits for
  // the moment its code was told it leads (System.nanoTime at that moment).
  private interface Participant {
    void join() throws Exception;
    void leave() throws Exception;
    long led() throws InterruptedException;
    boolean queued();  // its node exists
  }

  private static final class Latch implements Participant {
    private final CuratorFramework client;
    private final String path;
    private LeaderLatch latch;
    private final SynchronousQueue<Long> told = new SynchronousQueue<>();

    Latch(CuratorFramework client, String path) {
      this.client = client;
      this.path = path;
    }

    @Override
    public void join() throws Exception {
      latch = new LeaderLatch(client, path);
      latch.addListener(new LeaderLatchListener() {
        @Override
        public void isLeader() {
          long now = System.nanoTime();
          try {
            told.put(now);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }

        @Override
        public void notLeader() {}
      });
      latch.start();
    }

    @Override
    public void leave() throws IOException {
      latch.close();
    }

    @Override
    public long led() throws InterruptedException {
      Long at = told.poll(30, TimeUnit.SECONDS);
      if (at == null) throw new IllegalStateException("no leadership within 30 s");
      return at;
    }

    @Override
    public boolean queued() {
      return latch.getOurPath() != null;
    }
  }

  private static final class Selector implements Participant {
    private final LeaderSelector selector;
    private final SynchronousQueue<Long> told = new SynchronousQueue<>();
    private final Semaphore release = new Semaphore(0);
    private final String id = UUID.randomUUID().toString();

    Selector(CuratorFramework client, String path) {
      selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
        @Override
        public void takeLeadership(CuratorFramework c) throws Exception {
          told.put(System.nanoTime());
          release.acquire();  // leads until leave()
        }
      });
      selector.setId(id);
      selector.autoRequeue();
    }

    @Override
    public void join() {
      selector.start();  // once: autoRequeue joins again after each leadership
    }

    @Override
    public void leave() {
      release.release();
    }

    @Override
    public long led() throws InterruptedException {
      Long at = told.poll(30, TimeUnit.SECONDS);
      if (at == null) throw new IllegalStateException("no leadership within 30 s");
      return at;
    }

    @Override
    public boolean queued() {
      try {
        return selector.getParticipants().stream().anyMatch(p -> p.getId().equals(id));
      } catch (Exception e) {
        return false;  // the path is not made yet
      }
    }

    void close() {
      selector.close();
    }
  }

  private static Participant make(String recipe, CuratorFramework client, String path) {
    if (recipe.equals("latch")) return new Latch(client, path);
    if (recipe.equals("selector")) return new Selector(client, path);
    throw new IllegalArgumentException("latch or selector: " + recipe);
  }

  // The value at rank ceil(q/100 * n) of the sorted samples (the rank zkwire's histogram and the script use).
  private static double percentile(List<Double> sorted, double q) {
    if (sorted.isEmpty()) return 0.0;
    int rank = (int) Math.max(1, Math.ceil(q / 100.0 * sorted.size()));
    return sorted.get(Math.min(rank, sorted.size()) - 1);
  }

  // The leader's node: with two participants queued, the child with the smaller sequence number (the text after
  // the last '-', as both recipes order them).
  private static String leaderNode(CuratorFramework client, String path) throws Exception {
    List<String> children = client.getChildren().forPath(path);
    children.sort((x, y) -> x.substring(x.lastIndexOf('-') + 1).compareTo(y.substring(y.lastIndexOf('-') + 1)));
    return path + "/" + children.get(0);
  }

  private static void print(String op, List<Double> samples) {
    Collections.sort(samples);
    double sum = 0;
    for (double s : samples) sum += s;
    System.out.println(String.format(Locale.ROOT,
        "{\"op\":\"%s\",\"count\":%d,\"p50_us\":%.3f,\"p99_us\":%.3f,\"mean_us\":%.3f}", op, samples.size(),
        percentile(samples, 50), percentile(samples, 99), samples.isEmpty() ? 0.0 : sum / samples.size()));
  }

  private static void handoff(String servers, String recipe, int count, int warmup, int settleMs) throws Exception {
    String path = "/curator-election-bench-" + UUID.randomUUID().toString().substring(0, 8);
    CuratorFramework a = connect(servers, 10000);
    CuratorFramework b = connect(servers, 10000);
    try {
      CuratorFramework[] clients = {a, b};
      Participant[] sides = {make(recipe, a, path), make(recipe, b, path)};
      sides[0].join();
      sides[0].led();
      int leader = 0;
      boolean selector = recipe.equals("selector");
      sides[1].join();
      List<Double> whole = new ArrayList<>(count);
      List<Double> notifiedSamples = new ArrayList<>(count);
      List<Double> after = new ArrayList<>(count);
      for (int i = 0; i < warmup + count; ++i) {
        Participant current = sides[leader];
        Participant next = sides[1 - leader];
        // The follower is queued (its node made, its predecessor watched) before the leader leaves.
        long settleUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settleMs);
        while (!next.queued()) Thread.sleep(1);
        // The follower's client hears of the leader node's deletion through a watch of its own too.
        AtomicLong notified = new AtomicLong();
        Watcher onDeleted = event -> {
          if (event.getType() == Watcher.Event.EventType.NodeDeleted) notified.set(System.nanoTime());
        };
        if (clients[1 - leader].checkExists().usingWatcher(onDeleted).forPath(leaderNode(clients[1 - leader], path))
            == null) {
          throw new IllegalStateException("the leader's node is not there to watch");
        }
        while (System.nanoTime() < settleUntil) Thread.sleep(1);
        long start = System.nanoTime();
        current.leave();
        long led = next.led();
        while (notified.get() == 0) Thread.sleep(0, 100000);
        if (i >= warmup) {
          whole.add((led - start) / 1e3);
          notifiedSamples.add((notified.get() - start) / 1e3);
          after.add((led - notified.get()) / 1e3);
        }
        if (!selector) current.join();  // a selector queues again by itself (autoRequeue)
        leader = 1 - leader;
      }
      for (Participant p : sides) {
        if (p instanceof Selector) ((Selector) p).close();
        if (p instanceof Latch) ((Latch) p).leave();
      }
      a.delete().deletingChildrenIfNeeded().forPath(path);
      print("handoff", whole);
      print("notified", notifiedSamples);
      print("after_notified", after);
    } finally {
      a.close();
      b.close();
    }
  }

  private static void participant(String servers, String recipe, String path, int sessionMs) throws Exception {
    CuratorFramework client = connect(servers, sessionMs);
    Participant p = make(recipe, client, path);
    p.join();
    while (!p.queued()) Thread.sleep(1);
    System.out.println("joined");
    System.out.flush();
    Thread waiter = new Thread(() -> {
      try {
        long at = p.led();
        System.out.println("leader " + at);
        System.out.flush();
      } catch (Exception e) {
        System.err.println("CuratorElectionBench: " + e);
      }
    });
    waiter.setDaemon(true);
    waiter.start();
    while (System.in.read() >= 0) {
      // until stdin closes (or SIGKILL)
    }
    client.close();
  }

  public static void main(String[] args) {
    try {
      if (args.length >= 6 && args[1].equals("handoff")) {
        handoff(args[0], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
      } else if (args.length >= 5 && args[1].equals("participant")) {
        participant(args[0], args[2], args[3], Integer.parseInt(args[4]));
      } else {
        throw new IllegalArgumentException("usage: CuratorElectionBench SERVERS handoff latch|selector COUNT WARMUP"
                                           + " SETTLE_MS | SERVERS participant latch|selector PATH SESSION_MS");
      }
    } catch (Exception e) {
      System.err.println("CuratorElectionBench: " + e);
      System.exit(1);
    }
    System.exit(0);
  }
}
