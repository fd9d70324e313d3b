// zkwire::client and Kazoo (Debian's python3-kazoo) on the same real server: what one writes, the other reads
// back identically — data bytes (binary, empty, null), every stat field, ACLs, sequence numbers, ephemeral owners.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "client_test_support.hpp"
#include "support/kazoo.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using test::run_co;

class client_kazoo_test : public test::standalone_test {
 protected:
  // Runs `body` in Kazoo and returns its stdout; fails the test if the script failed.
  static std::string kazoo(const std::string& body) {
    auto r = test::run_kazoo(connect_string(), body);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }

  asio::io_context io_;
};

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

// The line Kazoo's dump prints for one node, built from zkwire's view of it.
std::string dump_line(const std::string& path, const std::string& data, const stat& st) {
  std::ostringstream line;
  line << path << ' ' << hex(data) << ' ' << st.czxid << ' ' << st.mzxid << ' ' << st.pzxid << ' ' << st.ctime << ' '
       << st.mtime << ' ' << st.version << ' ' << st.cversion << ' ' << st.aversion << ' ' << st.ephemeral_owner << ' '
       << st.data_length << ' ' << st.num_children;
  return line.str();
}

// Kazoo prints the same fields for every node under `root`, sorted by path.
std::string kazoo_dump_program(const std::string& root) {
  return "    def walk(p):\n"
         "        data, s = zk.get(p)\n"
         "        print(p, (data or b'').hex(), s.czxid, s.mzxid, s.pzxid, s.ctime, s.mtime, s.version, s.cversion,\n"
         "              s.aversion, s.ephemeralOwner, s.dataLength, s.numChildren)\n"
         "        for c in sorted(zk.get_children(p)):\n"
         "            walk(p + '/' + c)\n"
         "    walk('" +
         root + "')\n";
}

TEST_F(client_kazoo_test, KazooReadsBackWhatZkwireWrote) {
  client c(io_.get_executor(), test::client_options_for(connect_string()));
  std::map<std::string, std::string> expected;  // path -> dump line
  const std::string binary("b\0in\xff\x01", 6);
  run_co(io_, [&]() -> asio::awaitable<void> {
    co_await c.async_create(root(), "", use_awaitable);
    const auto bin = co_await c.async_create(root() + "/bin", binary, use_awaitable);
    create_options sequential;
    sequential.mode = create_mode::persistent_sequential;
    const auto seq1 = co_await c.async_create(root() + "/seq-", "1", sequential, use_awaitable);
    const auto seq2 = co_await c.async_create(root() + "/seq-", "2", sequential, use_awaitable);
    create_options ephemeral;
    ephemeral.mode = create_mode::ephemeral;
    const auto eph = co_await c.async_create(root() + "/eph", "mine", ephemeral, use_awaitable);
    EXPECT_EQ(eph.stat.ephemeral_owner, c.session_id());
    co_await c.async_set(root() + "/bin", binary + binary, 0, use_awaitable);
    // Built outside the co_await: GCC 12 cannot keep an initializer list's array in a coroutine frame.
    std::vector<multi_op> both = {ops::create(root() + "/multi", "m"), ops::set(root() + "/multi", "m2", 0),
                                  ops::check(root() + "/bin", 1)};
    const auto multi = co_await c.async_multi(std::move(both), use_awaitable);
    EXPECT_EQ(multi.size(), 3U);
    EXPECT_EQ(seq2.path.substr(seq2.path.size() - 10), std::string("0000000002"));  // after /bin and seq1
    (void)bin;
    (void)seq1;
    // zkwire's own reads are what Kazoo must see.
    const std::vector<std::string> names = {"", "/bin", "/eph", "/multi"};
    for (const auto& name : names) {
      const std::string path = root() + name;
      const auto got = co_await c.async_get(path, use_awaitable);
      expected[path] = dump_line(path, got.data, got.stat);
    }
    for (const auto& path : {seq1.path, seq2.path}) {
      const auto got = co_await c.async_get(path, use_awaitable);
      expected[path] = dump_line(path, got.data, got.stat);
    }
    EXPECT_EQ(expected[root() + "/bin"].find(hex(binary + binary)), root().size() + 5);
  }());

  std::string want;
  for (const auto& [path, line] : expected) want += line + "\n";
  EXPECT_EQ(kazoo(kazoo_dump_program(root())), want);
}

TEST_F(client_kazoo_test, ZkwireReadsBackWhatKazooWrote) {
  // Kazoo writes, then prints its own view: the created sequential path, the stats and the ACL it set.
  const std::string out = kazoo(
      "    from kazoo.security import make_digest_acl\n"
      "    r = '" +
      root() +
      "'\n"
      "    zk.create(r, b'')\n"
      "    zk.create(r + '/empty', b'')\n"
      "    zk.create(r + '/bin', b'k\\x00z\\xff')\n"
      "    zk.set(r + '/bin', b'k2', version=0)\n"
      "    print(zk.create(r + '/seq-', b's', sequence=True))\n"
      "    zk.create(r + '/acl', b'a', acl=[make_digest_acl('carol', 'pw', read=True, admin=True)])\n"
      "    zk.add_auth('digest', 'carol:pw')\n"
      "    print(zk.get_acls(r + '/acl')[0][0].id.id)\n" +
      kazoo_dump_program(root()));
  std::istringstream lines(out);
  std::string seq_path;
  std::string digest_id;
  std::getline(lines, seq_path);
  std::getline(lines, digest_id);
  std::string dump((std::istreambuf_iterator<char>(lines)), std::istreambuf_iterator<char>());
  EXPECT_EQ(seq_path, root() + "/seq-0000000002");  // after /empty and /bin

  client c(io_.get_executor(), test::client_options_for(connect_string()));
  run_co(io_, [&]() -> asio::awaitable<void> {
    std::string got_dump;
    const std::vector<std::string> names = {"", "/acl", "/bin", "/empty", seq_path.substr(root().size())};
    for (const auto& name : names) {
      const std::string path = root() + name;
      // Only carol may read the ACL node (and see its full digest id): zkwire authenticates as her for it.
      if (name == "/acl") co_await c.async_add_auth("digest", "carol:pw", use_awaitable);
      const auto got = co_await c.async_get(path, use_awaitable);
      got_dump += dump_line(path, got.data, got.stat) + "\n";
    }
    EXPECT_EQ(got_dump, dump);
    const auto acl = co_await c.async_get_acl(root() + "/acl", use_awaitable);
    ZKWIRE_CO_ASSERT(acl.acl.size() == 1U);
    EXPECT_EQ(acl.acl[0].id.scheme, std::string("digest"));
    EXPECT_EQ(acl.acl[0].id.id, digest_id);
    EXPECT_EQ(acl.acl[0].perms, perms::read | perms::admin);
    EXPECT_EQ((co_await c.async_get(root() + "/bin", use_awaitable)).data, std::string("k2"));
  }());
}

}  // namespace
}  // namespace zkwire
