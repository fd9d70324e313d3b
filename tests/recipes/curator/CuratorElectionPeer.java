// Curator's own leader recipes, LeaderLatch and LeaderSelector, as participants of the election tests: on the same
// election path as zkwire's participants (election_peers_test.cpp), and as contenders of the nemesis's comparison run
// (tests/faults/nemesis_test.cpp). Two modes:
//
//   CuratorElectionPeer interop <connect> <latch|selector> <path> <dir> <id prefix> <participants> <rounds> <hold ms>
//     <participants> participants, each with a session of its own and the id "<id prefix>-<n>", lead <rounds> times
//     each. A latch leaves after each leadership (close) and joins again with a new latch; a selector returns from
//     takeLeadership and requeues. While leading, a participant runs the critical section of the election oracle
//     (kazoo/election_oracle.py has the same): it makes the directory <dir>/inside (an existing one is another
//     leader inside: a line in <dir>/violations), asks `zkwire leader --json` who leads when the environment names
//     it (ZKWIRE_LISTING_CLI, ZKWIRE_LISTING_CONNECT, ZKWIRE_LISTING_PATH; the answer goes to <dir>/observations as
//     "zkwire-cli <before ns> <after ns> <leader id or ->"), holds for <hold ms>, removes it, and appends
//     "<id> <token> <start ns> <end ns>" to <dir>/sections (CLOCK_MONOTONIC, which System.nanoTime reads on Linux;
//     token: the czxid of its node). Meanwhile an observer with a session of its own asks the recipe who leads
//     (getLeader(), a poll of the server, as an application would), every 20 ms, and appends
//     "curator <before ns> <after ns> <leader id or ->" to <dir>/observations, until <dir>/stop exists.
//     Prints "sections=N" and exits 0 when every participant led <rounds> times.
//
//   CuratorElectionPeer nemesis <connect> <latch|selector> <path> <id> <session timeout ms> <command...>
//     One participant joins once. When it leads it runs <command> with ZKWIRE_LEADER_ID and ZKWIRE_FENCING_TOKEN
//     (the czxid of its node) in its environment, as `zkwire elect` does; when the recipe says leadership is lost
//     (LeaderLatchListener.notLeader; LeaderSelector's takeLeadership interrupted, which
//     LeaderSelectorListenerAdapter does on SUSPENDED and LOST) it sends the command SIGTERM. When the command has
//     ended it leaves and exits: 76 if leadership was lost meanwhile, else the command's status. What the recipe
//     does under faults is the point of that run: nothing here adds a safeguard of its own.
//
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;

public final class CuratorElectionPeer {
  private CuratorElectionPeer() {}

  private static CuratorFramework connect(String connect, int sessionTimeoutMs) throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.builder()
                                  .connectString(connect)
                                  .sessionTimeoutMs(sessionTimeoutMs)
                                  .connectionTimeoutMs(Math.max(sessionTimeoutMs, 5000))
                                  .retryPolicy(new ExponentialBackoffRetry(100, 10))
                                  .build();
    client.start();
    if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) throw new IllegalStateException("no session in 60 s");
    return client;
  }

  // Appends one line with one write (O_APPEND: lines of concurrent processes do not interleave).
  private static void append(Path file, String line) throws IOException {
    Files.write(file, (line + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND);
  }

  // The text Curator sorts a child by (the part after the last "lock-" or "latch-"; the whole name without one).
  private static String sortKey(String name, String marker) {
    int at = name.lastIndexOf(marker);
    return at < 0 ? name : name.substring(at + marker.length());
  }

  // The fencing token of the participant that leads now: the czxid of the first node in Curator's own order (a
  // selector does not tell its node's path; a leader's node is the first one while it leads).
  private static long firstNodeCzxid(CuratorFramework client, String path, String marker) throws Exception {
    List<String> children = new ArrayList<>(client.getChildren().forPath(path));
    children.sort(Comparator.comparing(name -> sortKey(name, marker)));
    if (children.isEmpty()) return 0;
    Stat stat = client.checkExists().forPath(path + "/" + children.get(0));
    return stat == null ? 0 : stat.getCzxid();
  }

  private static long czxidOf(CuratorFramework client, String nodePath) throws Exception {
    Stat stat = nodePath == null ? null : client.checkExists().forPath(nodePath);
    return stat == null ? 0 : stat.getCzxid();
  }

  // --- interop ---

  private static final class Oracle {
    final Path dir;
    final long holdMs;

    Oracle(String dir, long holdMs) {
      this.dir = Paths.get(dir);
      this.holdMs = holdMs;
    }

    void section(String id, long token) throws Exception {
      Path inside = dir.resolve("inside");
      boolean alone = true;
      try {
        Files.createDirectory(inside);
      } catch (FileAlreadyExistsException e) {
        alone = false;
        append(dir.resolve("violations"), id + " (curator) led while another leader was inside");
      }
      long start = System.nanoTime();
      askZkwire();
      Thread.sleep(holdMs);
      long end = System.nanoTime();
      if (alone) Files.deleteIfExists(inside);
      append(dir.resolve("sections"), id + " " + token + " " + start + " " + end);
    }

    // `zkwire leader --json` once, when the environment names it (ZKWIRE_LISTING_CLI, ZKWIRE_LISTING_CONNECT,
    // ZKWIRE_LISTING_PATH), its answer appended to the observations as "zkwire-cli BEFORE AFTER LEADER".
    void askZkwire() throws Exception {
      String cli = System.getenv("ZKWIRE_LISTING_CLI");
      if (cli == null || cli.isEmpty()) return;
      long before = System.nanoTime();
      Process p = new ProcessBuilder(cli, "-s", System.getenv("ZKWIRE_LISTING_CONNECT"), "leader", "--json",
                                     System.getenv("ZKWIRE_LISTING_PATH"))
                      .redirectError(ProcessBuilder.Redirect.DISCARD)
                      .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = p.waitFor();
      long after = System.nanoTime();
      String leader = "?";
      // {"leader":"ID" or null,...}: the first key (docs/cli.md#leader); the ids here need no unescaping.
      Matcher m = Pattern.compile("^\\{\"leader\":(null|\"([^\"\\\\]*)\")").matcher(out);
      if (status == 0 && m.find()) leader = m.group(2) == null || m.group(2).isEmpty() ? "-" : m.group(2);
      append(dir.resolve("observations"), "zkwire-cli " + before + " " + after + " " + leader);
    }

    boolean stopped() {
      return Files.exists(dir.resolve("stop"));
    }
  }

  private interface LeaderQuery {
    Participant leader() throws Exception;
  }

  // Asks who leads every 20 ms until the oracle's stop file exists (at most 10 minutes).
  private static void observe(Oracle oracle, LeaderQuery query) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (!oracle.stopped() && System.nanoTime() < deadline) {
      long before = System.nanoTime();
      String leader;
      try {
        Participant p = query.leader();
        leader = p.isLeader() && !p.getId().isEmpty() ? p.getId() : "-";
      } catch (Exception e) {
        leader = "?";  // no answer: the line says so, the oracle skips it
      }
      long after = System.nanoTime();
      append(oracle.dir.resolve("observations"), "curator " + before + " " + after + " " + leader);
      Thread.sleep(20);
    }
  }

  private static void latchParticipant(String connect, String path, String id, int rounds, Oracle oracle)
      throws Exception {
    try (CuratorFramework client = connect(connect, 20000)) {
      for (int round = 0; round < rounds; ++round) {
        LeaderLatch latch = new LeaderLatch(client, path, id);
        latch.start();
        if (!latch.await(120, TimeUnit.SECONDS)) throw new IllegalStateException(id + " did not lead in 120 s");
        oracle.section(id, czxidOf(client, latch.getOurPath()));
        latch.close();
      }
    }
  }

  private static void selectorParticipant(String connect, String path, String id, int rounds, Oracle oracle)
      throws Exception {
    try (CuratorFramework client = connect(connect, 20000)) {
      AtomicInteger led = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(1);
      AtomicReference<Exception> failure = new AtomicReference<>();
      LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
        @Override
        public void takeLeadership(CuratorFramework c) {
          if (led.get() >= rounds) return;  // requeued once more before close(): give it back at once
          try {
            oracle.section(id, firstNodeCzxid(c, path, "lock-"));
          } catch (Exception e) {
            failure.compareAndSet(null, e);
          }
          if (led.incrementAndGet() >= rounds) done.countDown();
        }
      });
      selector.setId(id);
      selector.autoRequeue();
      selector.start();
      if (!done.await(300, TimeUnit.SECONDS)) throw new IllegalStateException(id + " did not lead in time");
      selector.close();
      if (failure.get() != null) throw failure.get();
    }
  }

  private static int interop(String[] args) throws Exception {
    String connect = args[1];
    String recipe = args[2];
    String path = args[3];
    Oracle oracle = new Oracle(args[4], Long.parseLong(args[8]));
    String prefix = args[5];
    int participants = Integer.parseInt(args[6]);
    int rounds = Integer.parseInt(args[7]);
    boolean latch = recipe.equals("latch");
    if (!latch && !recipe.equals("selector")) throw new IllegalArgumentException("latch or selector: " + recipe);

    List<Thread> threads = new ArrayList<>();
    AtomicReference<Exception> failure = new AtomicReference<>();
    for (int n = 0; n < participants; ++n) {
      String id = prefix + "-" + n;
      Thread t = new Thread(() -> {
        try {
          if (latch) {
            latchParticipant(connect, path, id, rounds, oracle);
          } else {
            selectorParticipant(connect, path, id, rounds, oracle);
          }
        } catch (Exception e) {
          failure.compareAndSet(null, e);
        }
      });
      threads.add(t);
      t.start();
    }
    try (CuratorFramework client = connect(connect, 20000)) {
      // Not started: getLeader() only reads the path, as any process that wants to know who leads.
      LeaderLatch latchView = new LeaderLatch(client, path);
      LeaderSelector selectorView = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
        @Override
        public void takeLeadership(CuratorFramework c) {}
      });
      Thread observer = new Thread(() -> {
        try {
          observe(oracle, latch ? latchView::getLeader : selectorView::getLeader);
        } catch (Exception e) {
          failure.compareAndSet(null, e);
        }
      });
      observer.start();
      for (Thread t : threads) t.join();
      observer.join();
    }
    if (failure.get() != null) throw failure.get();
    System.out.println("sections=" + participants * rounds);
    return 0;
  }

  // --- nemesis ---

  // A line of the contender's log (stderr), with CLOCK_MONOTONIC in seconds, the clock of the nemesis's records.
  private static void log(String text) {
    System.err.println(String.format(java.util.Locale.ROOT, "%.3f %s", System.nanoTime() / 1e9, text));
  }

  // The leader's command, started once, told to stop at most once.
  private static final class Command {
    private final List<String> argv;
    private final String id;
    private Process process;
    private final AtomicBoolean lost = new AtomicBoolean();

    Command(List<String> argv, String id) {
      this.argv = argv;
      this.id = id;
    }

    synchronized void start(long token) throws IOException {
      ProcessBuilder builder = new ProcessBuilder(argv).inheritIO();
      builder.environment().put("ZKWIRE_LEADER_ID", id);
      builder.environment().put("ZKWIRE_FENCING_TOKEN", Long.toString(token));
      log(id + " leads with token " + token);
      process = builder.start();
      if (lost.get()) process.destroy();  // lost before it started
    }

    synchronized void lose() {
      if (!lost.compareAndSet(false, true)) return;
      log(id + ": leadership lost, the command is told to stop");
      if (process != null) process.destroy();  // SIGTERM
    }

    int waitFor() throws InterruptedException {
      Process p;
      synchronized (this) {
        p = process;
      }
      return p.waitFor();
    }

    boolean wasLost() {
      return lost.get();
    }
  }

  private static int nemesis(String[] args) throws Exception {
    String connect = args[1];
    String recipe = args[2];
    String path = args[3];
    String id = args[4];
    int sessionTimeoutMs = Integer.parseInt(args[5]);
    Command command = new Command(Arrays.asList(args).subList(6, args.length), id);
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<Exception> failure = new AtomicReference<>();
    int status;
    log(id + " connects");
    try (CuratorFramework client = connect(connect, sessionTimeoutMs)) {
      client.getConnectionStateListenable().addListener((c, state) -> log("connection " + state));
      log(id + " joins");
      if (recipe.equals("latch")) {
        LeaderLatch latch = new LeaderLatch(client, path, id);
        // The listener on a thread of its own: it reads our node's czxid with a blocking call.
        ExecutorService listenerThread = Executors.newSingleThreadExecutor();
        latch.addListener(new LeaderLatchListener() {
          @Override
          public void isLeader() {
            // The command is started once, on the first leadership.
            if (started.getCount() == 0) return;
            try {
              command.start(czxidOf(client, latch.getOurPath()));
            } catch (Exception e) {
              failure.compareAndSet(null, e);
            }
            started.countDown();
          }

          @Override
          public void notLeader() {
            command.lose();
          }
        }, listenerThread);
        latch.start();
        started.await();
        if (failure.get() != null) throw failure.get();
        status = command.waitFor();
        latch.close();
        listenerThread.shutdown();
      } else {
        CountDownLatch ended = new CountDownLatch(1);
        AtomicInteger commandStatus = new AtomicInteger();
        LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
          @Override
          public void takeLeadership(CuratorFramework c) {
            if (started.getCount() == 0) return;  // requeued once more before close(): give it back at once
            try {
              command.start(firstNodeCzxid(c, path, "lock-"));
              started.countDown();
              try {
                commandStatus.set(command.waitFor());
              } catch (InterruptedException e) {
                // Curator interrupts the leader's thread when it cancels leadership (SUSPENDED, LOST).
                command.lose();
                commandStatus.set(command.waitFor());
              }
            } catch (Exception e) {
              failure.compareAndSet(null, e);
            }
            ended.countDown();
          }
        });
        selector.setId(id);
        // As an application keeps its selector in the election: a wait that fails (its node gone with an expired
        // session) queues again instead of ending the participation.
        selector.autoRequeue();
        selector.start();
        ended.await();
        selector.close();
        if (failure.get() != null) throw failure.get();
        status = commandStatus.get();
      }
    }
    return command.wasLost() ? 76 : status;
  }

  public static void main(String[] args) throws Exception {
    int status;
    if (args.length >= 9 && args[0].equals("interop")) {
      status = interop(args);
    } else if (args.length >= 7 && args[0].equals("nemesis")) {
      status = nemesis(args);
    } else {
      System.err.println("usage: CuratorElectionPeer interop|nemesis ... (see the file's comment)");
      status = 2;
    }
    System.exit(status);
  }
}
