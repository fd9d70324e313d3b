// Driver for the golden wire captures made with the official ZooKeeper 3.8 Java client.
//
// Not part of the zkwire build. capture.py compiles it with
//   javac -cp /usr/share/java/zookeeper.jar -d <tmp> GoldenJava.java
// and runs it as
//   java -cp <tmp>:/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar \
//        GoldenJava <scenario> <proxyPort> <directPort>
//
// The recorded client always connects to 127.0.0.1:<proxyPort> (the recording proxy).
// A second "helper" handle on 127.0.0.1:<directPort> (the server itself, not recorded)
// is used where another session has to change something.
//
// Control protocol with capture.py over stdin/stdout, one line each, each answered by one
// line on stdin before the program continues:
//   NOTE <text>   capture.py writes "# <text>" into the frame file at this point
//   CUT           capture.py drops the proxied connection(s) and holds new ones
//   RELEASE       capture.py lets held connections through to the server again
// Everything else goes to stderr.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.admin.ZooKeeperAdmin;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Stat;

public final class GoldenJava {
    private static final List<ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;
    private static BufferedReader ctl;

    /** Collects every event delivered to a watcher, so the driver can wait for them in order. */
    static final class Events implements Watcher {
        final BlockingQueue<WatchedEvent> q = new LinkedBlockingQueue<>();
        final String name;

        Events(String name) {
            this.name = name;
        }

        @Override
        public void process(WatchedEvent e) {
            System.err.println("[" + name + "] event " + e);
            q.add(e);
        }

        WatchedEvent next() throws InterruptedException {
            WatchedEvent e = q.poll(15, TimeUnit.SECONDS);
            if (e == null) {
                throw new IllegalStateException(name + ": no event within 15 s");
            }
            return e;
        }

        /** Waits for a node event (type != None), skipping connection-state events. */
        WatchedEvent nextNode() throws InterruptedException {
            while (true) {
                WatchedEvent e = next();
                if (e.getType() != Event.EventType.None) {
                    return e;
                }
            }
        }

        void waitState(Event.KeeperState s) throws InterruptedException {
            while (true) {
                WatchedEvent e = next();
                if (e.getType() == Event.EventType.None && e.getState() == s) {
                    return;
                }
            }
        }
    }

    private static String ctl(String line) throws Exception {
        System.out.println(line);
        System.out.flush();
        String ack = ctl.readLine();
        if (ack == null) {
            throw new IllegalStateException("control channel closed");
        }
        return ack;
    }

    private static void note(String text) throws Exception {
        ctl("NOTE " + text);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ZooKeeper connect(int port, Events w) throws Exception {
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + port, 10000, w);
        w.waitState(Watcher.Event.KeeperState.SyncConnected);
        return zk;
    }

    private static void expect(KeeperException.Code code, ThrowingRunnable r) throws Exception {
        try {
            r.run();
        } catch (KeeperException e) {
            if (e.code() != code) {
                throw e;
            }
            System.err.println("expected error " + code);
            return;
        }
        throw new IllegalStateException("expected " + code);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        ctl = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String scenario = args[0];
        int proxy = Integer.parseInt(args[1]);
        int direct = Integer.parseInt(args[2]);
        switch (scenario) {
            case "basic": basic(proxy); break;
            case "container_ttl": containerTtl(proxy); break;
            case "multi": multi(proxy); break;
            case "multiread": multiRead(proxy); break;
            case "setwatches": setWatches(proxy, direct); break;
            case "setwatches2": setWatches2(proxy, direct); break;
            case "addwatch": addWatch(proxy); break;
            case "info": info(proxy); break;
            case "sasl": sasl(proxy); break;
            case "auth_failed": authFailed(proxy); break;
            case "reconfig": reconfig(proxy); break;
            default: throw new IllegalArgumentException("unknown scenario " + scenario);
        }
        System.err.println("scenario " + scenario + " done");
        System.exit(0);
    }

    /** The everyday calls, as the Java client encodes them. */
    static void basic(int port) throws Exception {
        Events w = new Events("main");
        note("ZooKeeper(127.0.0.1:proxy, 10000): ConnectRequest / ConnectResponse");
        ZooKeeper zk = connect(port, w);
        note("create /g/a data 'x' PERSISTENT (sync API without Stat)");
        zk.create("/g/a", b("x"), OPEN, CreateMode.PERSISTENT);
        note("create /g/b data 'yy' PERSISTENT with Stat out-param");
        zk.create("/g/b", b("yy"), OPEN, CreateMode.PERSISTENT, new Stat());
        note("create /g/n null data PERSISTENT");
        zk.create("/g/n", null, OPEN, CreateMode.PERSISTENT);
        note("create /g/s- EPHEMERAL_SEQUENTIAL with Stat");
        zk.create("/g/s-", b("q"), OPEN, CreateMode.EPHEMERAL_SEQUENTIAL, new Stat());
        note("exists /g/a watch=false");
        zk.exists("/g/a", false);
        note("getData /g/a watch=false");
        zk.getData("/g/a", false, new Stat());
        note("getData /g/n watch=false (null data)");
        zk.getData("/g/n", false, null);
        note("setData /g/a 'z' version 0");
        zk.setData("/g/a", b("z"), 0);
        note("getChildren /g watch=false (no Stat)");
        zk.getChildren("/g", false);
        note("getChildren /g with Stat");
        zk.getChildren("/g", false, new Stat());
        note("sync /g");
        CountDownLatch done = new CountDownLatch(1);
        zk.sync("/g", (rc, path, ctx) -> done.countDown(), null);
        done.await(15, TimeUnit.SECONDS);
        note("create /g/a again: NODEEXISTS");
        expect(KeeperException.Code.NODEEXISTS, () -> zk.create("/g/a", b("x"), OPEN, CreateMode.PERSISTENT));
        note("delete /g/a version 5: BADVERSION");
        expect(KeeperException.Code.BADVERSION, () -> zk.delete("/g/a", 5));
        note("delete /g/a version 1");
        zk.delete("/g/a", 1);
        note("close(): closeSession");
        zk.close();
    }

    /** createContainer (19) and createTTL (21). */
    static void containerTtl(int port) throws Exception {
        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        note("create /g/c CONTAINER (sync API without Stat)");
        zk.create("/g/c", b("c"), OPEN, CreateMode.CONTAINER);
        note("create /g/c2 CONTAINER with Stat");
        zk.create("/g/c2", null, OPEN, CreateMode.CONTAINER, new Stat());
        note("create /g/c/k PERSISTENT inside the container");
        zk.create("/g/c/k", b("k"), OPEN, CreateMode.PERSISTENT);
        note("create /g/t PERSISTENT_WITH_TTL ttl=60000");
        zk.create("/g/t", b("t"), OPEN, CreateMode.PERSISTENT_WITH_TTL, new Stat(), 60000);
        note("create /g/ts- PERSISTENT_SEQUENTIAL_WITH_TTL ttl=3600000");
        zk.create("/g/ts-", b("u"), OPEN, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, new Stat(), 3600000);
        note("create /g/t again with TTL: NODEEXISTS");
        expect(KeeperException.Code.NODEEXISTS,
               () -> zk.create("/g/t", b("t"), OPEN, CreateMode.PERSISTENT_WITH_TTL, new Stat(), 60000));
        note("exists /g/c (container Stat: ephemeralOwner 0)");
        zk.exists("/g/c", false);
        note("exists /g/t (TTL Stat: ephemeralOwner 0)");
        zk.exists("/g/t", false);
        note("close");
        zk.close();
    }

    static void multi(int port) throws Exception {
        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        note("multi OK: create /g/m PERSISTENT, create /g/m/e EPHEMERAL, setData /g/m, check /g/m v1, delete /g/m/e");
        zk.multi(Arrays.asList(
            Op.create("/g/m", b("1"), OPEN, CreateMode.PERSISTENT),
            Op.create("/g/m/e", b("2"), OPEN, CreateMode.EPHEMERAL),
            Op.setData("/g/m", b("3"), 0),
            Op.check("/g/m", 1),
            Op.delete("/g/m/e", -1)));
        note("multi OK: create CONTAINER /g/mc, create PERSISTENT_WITH_TTL /g/mt ttl 60000, create PERSISTENT_SEQUENTIAL /g/ms-");
        zk.multi(Arrays.asList(
            Op.create("/g/mc", null, OPEN, CreateMode.CONTAINER),
            Op.create("/g/mt", b("t"), OPEN, CreateMode.PERSISTENT_WITH_TTL, 60000),
            Op.create("/g/ms-", b(""), OPEN, CreateMode.PERSISTENT_SEQUENTIAL)));
        note("multi FAILS: create /g/x, check /g/m v7 (BADVERSION), delete /g/m");
        try {
            zk.multi(Arrays.asList(
                Op.create("/g/x", b("x"), OPEN, CreateMode.PERSISTENT),
                Op.check("/g/m", 7),
                Op.delete("/g/m", -1)));
            throw new IllegalStateException("multi should have failed");
        } catch (KeeperException e) {
            System.err.println("expected multi failure " + e.code());
        }
        note("close");
        zk.close();
    }

    static void multiRead(int port) throws Exception {
        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        note("create /g/r 'rd'");
        zk.create("/g/r", b("rd"), OPEN, CreateMode.PERSISTENT);
        note("create /g/r/c1 (null data)");
        zk.create("/g/r/c1", null, OPEN, CreateMode.PERSISTENT);
        note("multiRead: getChildren /g/r, getData /g/r, getData /g/r/c1 (null data), getData /g/nope (NONODE), getChildren /g/nope (NONODE)");
        List<OpResult> res = zk.multi(Arrays.asList(
            Op.getChildren("/g/r"),
            Op.getData("/g/r"),
            Op.getData("/g/r/c1"),
            Op.getData("/g/nope"),
            Op.getChildren("/g/nope")));
        System.err.println("multiRead results " + res.size());
        note("close");
        zk.close();
    }

    /** One-shot watches re-armed with SetWatches (101) after a reconnect. */
    static void setWatches(int port, int direct) throws Exception {
        Events hw = new Events("helper");
        ZooKeeper helper = connect(direct, hw);
        helper.create("/g/a", b("a0"), OPEN, CreateMode.PERSISTENT);
        helper.create("/g/c", null, OPEN, CreateMode.PERSISTENT);
        helper.create("/g/c/1", null, OPEN, CreateMode.PERSISTENT);
        helper.create("/g/d", b("d"), OPEN, CreateMode.PERSISTENT);

        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        Events dataW = new Events("data /g/a");
        Events existW = new Events("exist /g/x");
        Events childW = new Events("child /g/c");
        Events dW = new Events("data /g/d");
        note("getData /g/a watch (data watch)");
        zk.getData("/g/a", dataW, null);
        note("exists /g/x watch (missing node: exist watch, NONODE reply)");
        zk.exists("/g/x", existW);
        note("getChildren /g/c watch (child watch)");
        zk.getChildren("/g/c", childW);
        note("getData /g/d watch (data watch, stays unchanged while disconnected)");
        zk.getData("/g/d", dW, null);
        note("proxy cuts the connection; while disconnected another session sets /g/a and creates /g/x");
        ctl("CUT");
        w.waitState(Watcher.Event.KeeperState.Disconnected);
        helper.setData("/g/a", b("a1"), -1);
        helper.create("/g/x", b("x"), OPEN, CreateMode.PERSISTENT);
        note("reconnect: ConnectRequest resuming the session, then SetWatches; server fires NodeDataChanged /g/a and NodeCreated /g/x before the SetWatches reply");
        ctl("RELEASE");
        w.waitState(Watcher.Event.KeeperState.SyncConnected);
        dataW.nextNode();
        existW.nextNode();
        Thread.sleep(300);
        note("setData /g/d 'd2' (fires the re-armed data watch: NodeDataChanged)");
        zk.setData("/g/d", b("d2"), -1);
        dW.nextNode();
        note("create /g/c/2 (fires the re-armed child watch: NodeChildrenChanged)");
        zk.create("/g/c/2", null, OPEN, CreateMode.PERSISTENT);
        childW.nextNode();
        note("close");
        zk.close();
        helper.close();
    }

    /** Persistent watches re-armed with SetWatches2 (105) after a reconnect. */
    static void setWatches2(int port, int direct) throws Exception {
        Events hw = new Events("helper");
        ZooKeeper helper = connect(direct, hw);
        helper.create("/g/p", b("p"), OPEN, CreateMode.PERSISTENT);
        helper.create("/g/r", null, OPEN, CreateMode.PERSISTENT);
        helper.create("/g/a", b("a"), OPEN, CreateMode.PERSISTENT);

        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        Events pW = new Events("persistent /g/p");
        Events rW = new Events("recursive /g/r");
        Events aW = new Events("data /g/a");
        note("addWatch /g/p PERSISTENT");
        zk.addWatch("/g/p", pW, AddWatchMode.PERSISTENT);
        note("addWatch /g/r PERSISTENT_RECURSIVE");
        zk.addWatch("/g/r", rW, AddWatchMode.PERSISTENT_RECURSIVE);
        note("getData /g/a watch (one-shot data watch)");
        zk.getData("/g/a", aW, null);
        note("proxy cuts the connection");
        ctl("CUT");
        w.waitState(Watcher.Event.KeeperState.Disconnected);
        note("reconnect: ConnectRequest resuming the session, then SetWatches2 (data + persistent + recursive)");
        ctl("RELEASE");
        w.waitState(Watcher.Event.KeeperState.SyncConnected);
        Thread.sleep(300); // let SetWatches2 and its reply pass before the next note
        note("setData /g/p (persistent watch: NodeDataChanged)");
        zk.setData("/g/p", b("p2"), -1);
        pW.nextNode();
        note("create /g/r/x (recursive watch: NodeCreated)");
        zk.create("/g/r/x", null, OPEN, CreateMode.PERSISTENT);
        rW.nextNode();
        note("setData /g/a (re-armed one-shot: NodeDataChanged)");
        zk.setData("/g/a", b("a2"), -1);
        aW.nextNode();
        note("close");
        zk.close();
        helper.close();
    }

    /** addWatch (106), removeWatches (18), checkWatches (17). */
    static void addWatch(int port) throws Exception {
        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        zk.create("/g/p", b("p"), OPEN, CreateMode.PERSISTENT);
        zk.create("/g/r", null, OPEN, CreateMode.PERSISTENT);
        zk.create("/g/a", b("a"), OPEN, CreateMode.PERSISTENT);
        Events pW = new Events("persistent /g/p");
        Events rW = new Events("recursive /g/r");
        note("addWatch /g/p PERSISTENT (mode 0)");
        zk.addWatch("/g/p", pW, AddWatchMode.PERSISTENT);
        note("addWatch /g/r PERSISTENT_RECURSIVE (mode 1)");
        zk.addWatch("/g/r", rW, AddWatchMode.PERSISTENT_RECURSIVE);
        note("setData /g/p: NodeDataChanged /g/p");
        zk.setData("/g/p", b("p1"), -1);
        pW.nextNode();
        note("create /g/p/k: NodeChildrenChanged /g/p");
        zk.create("/g/p/k", null, OPEN, CreateMode.PERSISTENT);
        pW.nextNode();
        note("setData /g/p again: NodeDataChanged /g/p (watch is persistent)");
        zk.setData("/g/p", b("p2"), -1);
        pW.nextNode();
        note("create /g/r/x: NodeCreated /g/r/x (recursive)");
        zk.create("/g/r/x", b("x"), OPEN, CreateMode.PERSISTENT);
        rW.nextNode();
        note("setData /g/r/x: NodeDataChanged /g/r/x");
        zk.setData("/g/r/x", b("y"), -1);
        rW.nextNode();
        note("delete /g/r/x: NodeDeleted /g/r/x (no NodeChildrenChanged for /g/r)");
        zk.delete("/g/r/x", -1);
        rW.nextNode();
        note("removeAllWatches /g/p Any local=false");
        zk.removeAllWatches("/g/p", Watcher.WatcherType.Any, false);
        note("removeWatches /g/r watcher Any local=false");
        zk.removeWatches("/g/r", rW, Watcher.WatcherType.Any, false);
        Events dW = new Events("data /g/a");
        Events cW = new Events("child /g/a");
        note("getData /g/a watch; getChildren /g/a watch");
        zk.getData("/g/a", dW, null);
        zk.getChildren("/g/a", cW);
        note("removeWatches /g/a dataWatcher Data local=false");
        zk.removeWatches("/g/a", dW, Watcher.WatcherType.Data, false);
        note("removeWatches /g/a childWatcher Children local=false");
        zk.removeWatches("/g/a", cW, Watcher.WatcherType.Children, false);
        note("removeAllWatches /g/a Any local=false again (nothing left)");
        try {
            zk.removeAllWatches("/g/a", Watcher.WatcherType.Any, false);
        } catch (KeeperException e) {
            System.err.println("removeAllWatches without watches: " + e.code());
        }
        note("removeAllWatches /g/zz Any local=false (no watches anywhere: server NOWATCHER)");
        try {
            zk.removeAllWatches("/g/zz", Watcher.WatcherType.Any, false);
        } catch (KeeperException e) {
            System.err.println("removeAllWatches /g/zz: " + e.code());
        }
        note("removeWatches /g/zz watcher Data local=false (checkWatches: server NOWATCHER)");
        try {
            zk.removeWatches("/g/zz", dW, Watcher.WatcherType.Data, false);
        } catch (KeeperException e) {
            System.err.println("removeWatches /g/zz: " + e.code());
        }
        note("close");
        zk.close();
    }

    /** getEphemerals (103), getAllChildrenNumber (104), whoAmI (107), auth, getConfig. */
    static void info(int port) throws Exception {
        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        note("addAuthInfo digest bob:secret (xid -4)");
        zk.addAuthInfo("digest", b("bob:secret"));
        Thread.sleep(300); // addAuthInfo does not wait for the reply
        note("create /g/e1, /g/e2 EPHEMERAL and /g/p/q PERSISTENT");
        zk.create("/g/e1", null, OPEN, CreateMode.EPHEMERAL);
        zk.create("/g/e2", b("2"), OPEN, CreateMode.EPHEMERAL);
        zk.create("/g/p", null, OPEN, CreateMode.PERSISTENT);
        zk.create("/g/p/q", null, OPEN, CreateMode.PERSISTENT);
        note("getEphemerals /g");
        zk.getEphemerals("/g");
        note("getEphemerals (no prefix: sends /)");
        zk.getEphemerals();
        note("getEphemerals /nothing (empty list)");
        zk.getEphemerals("/nothing");
        note("getAllChildrenNumber /g");
        zk.getAllChildrenNumber("/g");
        note("getAllChildrenNumber /g/nope: NONODE");
        expect(KeeperException.Code.NONODE, () -> zk.getAllChildrenNumber("/g/nope"));
        note("whoAmI");
        List<ClientInfo> who = zk.whoAmI();
        System.err.println("whoAmI " + who);
        note("getConfig (getData /zookeeper/config)");
        zk.getConfig(false, new Stat());
        note("close");
        zk.close();
    }

    /** SASL DIGEST-MD5 (op 102) right after the handshake; needs the client JAAS file. */
    static void sasl(int port) throws Exception {
        Events w = new Events("main");
        note("connect with SASL DIGEST-MD5 (JAAS section Client, user bob)");
        ZooKeeper zk = new ZooKeeper("127.0.0.1:" + port, 10000, w);
        w.waitState(Watcher.Event.KeeperState.SaslAuthenticated);
        note("whoAmI (shows the sasl id)");
        zk.whoAmI();
        note("close");
        zk.close();
    }

    /** An unknown auth scheme: AUTHFAILED, then the server closes the connection. */
    static void authFailed(int port) throws Exception {
        Events w = new Events("main");
        note("connect");
        ZooKeeper zk = connect(port, w);
        note("addAuthInfo scheme 'bogus': AUTHFAILED reply, server closes the socket; Java stops (AuthFailed)");
        zk.addAuthInfo("bogus", b("x"));
        w.waitState(Watcher.Event.KeeperState.AuthFailed);
        Thread.sleep(1500);
        zk.close();
    }

    /** reconfig (16) on a server without reconfigEnabled: RECONFIGDISABLED. */
    static void reconfig(int port) throws Exception {
        Events w = new Events("main");
        note("ZooKeeperAdmin connect");
        ZooKeeperAdmin zk = new ZooKeeperAdmin("127.0.0.1:" + port, 10000, w);
        w.waitState(Watcher.Event.KeeperState.SyncConnected);
        note("reconfigure joining='server.9=127.0.0.1:2889:3889;2189' leaving=null newMembers=null fromConfig=-1: RECONFIGDISABLED");
        expect(KeeperException.Code.RECONFIGDISABLED,
               () -> zk.reconfigure("server.9=127.0.0.1:2889:3889;2189", null, null, -1, new Stat()));
        note("reconfigure incremental remove: joining=null leaving='3' newMembers=null fromConfig=-1: RECONFIGDISABLED");
        expect(KeeperException.Code.RECONFIGDISABLED,
               () -> zk.reconfigure(null, "3", null, -1, new Stat()));
        note("close");
        zk.close();
    }
}
