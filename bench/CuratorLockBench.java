// The Curator side of bench/lock_compare.py: Apache Curator's InterProcessMutex and InterProcessSemaphoreV2
// measured the way the script measures zkwire's lock and semaphore and Kazoo's Lock. Compiled by the script at run time (javac, Debian's libcurator-*-java
// jars on the class path); prints one JSON object on stdout.
//
//   java CuratorLockBench SERVERS uncontended COUNT WARMUP
//       one session, one lock, COUNT acquire+release cycles one at a time (after WARMUP untimed ones);
//       latency: the whole cycle
//   java CuratorLockBench SERVERS handoff CONTENDERS COUNT WARMUP
//       CONTENDERS sessions (a thread each) on one lock, each acquiring and releasing at once, over and over,
//       until COUNT acquisitions (after WARMUP untimed ones); latency: the wait from asking to holding;
//       rate: acquisitions per second
//
//   java CuratorLockBench SERVERS semaphore LEASES COUNT WARMUP
//       as uncontended, with InterProcessSemaphoreV2 of LEASES leases: acquire one lease, return it
//
// Output: {"count":N,"p50_us":X,"p99_us":X,"ops_per_sec":X}. Everything happens under /curator-bench-<random>,
// removed at the end. Exit status 1 with a message on stderr on any failure.

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorLockBench {
  private CuratorLockBench() {}

  // A started client with a session, or an exception after 15 s.
  private static CuratorFramework connect(String servers) throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.builder()
                                  .connectString(servers)
                                  .sessionTimeoutMs(10000)
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

  // The value at rank ceil(q/100 * n) of the sorted samples (the rank zkwire's histogram and the script use).
  private static double percentile(List<Double> sorted, double q) {
    if (sorted.isEmpty()) return 0.0;
    int rank = (int) Math.max(1, Math.ceil(q / 100.0 * sorted.size()));
    return sorted.get(Math.min(rank, sorted.size()) - 1);
  }

  private static void print(List<Double> samples, double opsPerSec) {
    List<Double> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    System.out.println(String.format(Locale.ROOT, "{\"count\":%d,\"p50_us\":%.3f,\"p99_us\":%.3f,\"ops_per_sec\":%.1f}",
        sorted.size(), percentile(sorted, 50), percentile(sorted, 99), opsPerSec));
  }

  // One acquire+release of a recipe object made on `client`.
  private interface Cycle {
    void run() throws Exception;
  }

  private interface CycleFactory {
    Cycle make(CuratorFramework client) throws Exception;
  }

  // One session, COUNT cycles one at a time after WARMUP untimed ones; latency: the whole cycle.
  private static void timeCycles(String servers, String path, int count, int warmup, CycleFactory factory)
      throws Exception {
    CuratorFramework client = connect(servers);
    try {
      Cycle cycle = factory.make(client);
      List<Double> samples = new ArrayList<>(count);
      long began = 0;
      for (int i = 0; i < warmup + count; ++i) {
        if (i == warmup) began = System.nanoTime();
        long start = System.nanoTime();
        cycle.run();
        if (i >= warmup) samples.add((System.nanoTime() - start) / 1e3);
      }
      double seconds = (System.nanoTime() - began) / 1e9;
      client.delete().deletingChildrenIfNeeded().forPath(path);
      print(samples, seconds > 0 ? samples.size() / seconds : 0.0);
    } finally {
      client.close();
    }
  }

  private static void uncontended(String servers, String path, int count, int warmup) throws Exception {
    timeCycles(servers, path, count, warmup, client -> {
      InterProcessMutex mutex = new InterProcessMutex(client, path);
      return () -> {
        mutex.acquire();
        mutex.release();
      };
    });
  }

  private static void semaphore(String servers, String path, int leases, int count, int warmup) throws Exception {
    timeCycles(servers, path, count, warmup, client -> {
      InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, leases);
      return () -> {
        Lease lease = semaphore.acquire();
        semaphore.returnLease(lease);
      };
    });
  }

  private static void handoff(String servers, String path, int contenders, int count, int warmup) throws Exception {
    List<CuratorFramework> clients = new ArrayList<>();
    try {
      for (int i = 0; i < contenders; ++i) clients.add(connect(servers));
      // Acquisitions so far, over all contenders; the first `warmup` are not timed.
      AtomicLong started = new AtomicLong();
      AtomicLong measuredStart = new AtomicLong();
      AtomicReference<Exception> failure = new AtomicReference<>();
      List<Double> waits = Collections.synchronizedList(new ArrayList<>(count));
      CyclicBarrier gate = new CyclicBarrier(contenders);
      List<Thread> threads = new ArrayList<>();
      for (CuratorFramework client : clients) {
        Thread t = new Thread(() -> {
          InterProcessMutex mutex = new InterProcessMutex(client, path);
          try {
            gate.await();
            while (failure.get() == null) {
              long n = started.getAndIncrement();
              if (n >= (long) warmup + count) return;
              long start = System.nanoTime();
              mutex.acquire();
              long waited = System.nanoTime() - start;
              if (n == warmup) measuredStart.compareAndSet(0, start);
              if (n >= warmup) waits.add(waited / 1e3);
              mutex.release();
            }
          } catch (Exception e) {
            failure.compareAndSet(null, e);
          }
        });
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) t.join();
      if (failure.get() != null) throw failure.get();
      long end = System.nanoTime();
      double seconds = (end - measuredStart.get()) / 1e9;
      clients.get(0).delete().deletingChildrenIfNeeded().forPath(path);
      print(waits, seconds > 0 ? waits.size() / seconds : 0.0);
    } finally {
      for (CuratorFramework c : clients) c.close();
    }
  }

  public static void main(String[] args) {
    try {
      if (args.length < 4) throw new IllegalArgumentException("usage: CuratorLockBench SERVERS uncontended COUNT WARMUP"
                                                              + " | SERVERS handoff CONTENDERS COUNT WARMUP"
                                                              + " | SERVERS semaphore LEASES COUNT WARMUP");
      String servers = args[0];
      String path = "/curator-bench-" + UUID.randomUUID().toString().substring(0, 8);
      if (args[1].equals("uncontended")) {
        uncontended(servers, path, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
      } else if (args[1].equals("semaphore") && args.length >= 5) {
        semaphore(servers, path, Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      } else if (args[1].equals("handoff") && args.length >= 5) {
        handoff(servers, path, Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      } else {
        throw new IllegalArgumentException("unknown mode " + args[1]);
      }
    } catch (Exception e) {
      System.err.println("CuratorLockBench: " + e);
      System.exit(1);
    }
    System.exit(0);
  }
}
