// MD5 (RFC 1321 test suite) and the DIGEST-MD5 client steps (RFC 2831's worked example, challenge parsing).

#include "sasl_digest.hpp"

#include <gtest/gtest.h>

#include <string>

#include "md5.hpp"
#include "zkwire/proto/error.hpp"

namespace zkwire::proto::session_detail {
namespace {

TEST(Md5, Rfc1321TestSuite) {
  EXPECT_EQ(md5_hex(md5_digest("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex(md5_digest("a")), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(md5_hex(md5_digest("abc")), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5_hex(md5_digest("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(md5_hex(md5_digest("abcdefghijklmnopqrstuvwxyz")), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(md5_hex(md5_digest("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(md5_hex(md5_digest("1234567890123456789012345678901234567890123456789012345678901234567890123456789"
                               "0")),
            "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, IncrementalUpdatesAcrossBlockBoundariesMatchOneShot) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  for (const std::size_t cut : {1U, 55U, 56U, 63U, 64U, 65U, 127U, 200U}) {
    md5 h;
    h.update(std::string_view(text).substr(0, cut));
    h.update(std::string_view(text).substr(cut));
    EXPECT_EQ(md5_hex(h.finish()), md5_hex(md5_digest(text))) << "cut at " << cut;
  }
}

TEST(DigestMd5, Rfc2831WorkedExample) {
  // RFC 2831 section 4: chris / secret at elwood.innosoft.com, IMAP.
  EXPECT_EQ(digest_response_value("chris", "elwood.innosoft.com", "secret", "OA6MG9tEQGm2hh", "OA6MHXh6VqTrRk", true,
                                  "imap/elwood.innosoft.com"),
            "d388dad90d4bbd760a152321f2143af7");
  EXPECT_EQ(digest_response_value("chris", "elwood.innosoft.com", "secret", "OA6MG9tEQGm2hh", "OA6MHXh6VqTrRk", false,
                                  "imap/elwood.innosoft.com"),
            "ea40f60335c427b5527b84dbabcdfffd");
}

TEST(DigestMd5, ParsesTheZooKeeperServersChallenge) {
  digest_challenge c;
  std::string detail;
  ASSERT_FALSE(parse_digest_challenge(
      R"(realm="zk-sasl-md5",nonce="p+4Ri7Ns\"Q\\x",qop="auth",charset=utf-8,algorithm=md5-sess)", c, detail))
      << detail;
  EXPECT_EQ(c.realm, "zk-sasl-md5");
  EXPECT_EQ(c.nonce, R"(p+4Ri7Ns"Q\x)");
  EXPECT_TRUE(c.utf8);
  ASSERT_FALSE(parse_digest_challenge(R"( nonce = "n" , qop="auth-int, auth" ,algorithm=md5-sess)", c, detail))
      << detail;
  EXPECT_EQ(c.realm, "");
  EXPECT_EQ(c.nonce, "n");
  EXPECT_FALSE(c.utf8);
}

TEST(DigestMd5, RejectsBadChallengesWithAReason) {
  const char* bad[] = {
      "",                                                 // nothing
      R"(realm="r",qop="auth",algorithm=md5-sess)",       // no nonce
      R"(nonce="a",nonce="b",algorithm=md5-sess)",        // two nonces
      R"(nonce="n",qop="auth")",                          // no algorithm
      R"(nonce="n",qop="auth-conf",algorithm=md5-sess)",  // no qop=auth
      R"(nonce="n,algorithm=md5-sess)",                   // unterminated quote
      R"(nonce="n"x,algorithm=md5-sess)",                 // garbage after a value
      R"(nonce,algorithm=md5-sess)",                      // no '='
      "\xff\xfe\x00garbage",                              // binary
  };
  for (const char* token : bad) {
    digest_challenge c;
    std::string detail;
    EXPECT_EQ(parse_digest_challenge(token, c, detail), client_error::sasl_exchange_failed) << token;
    EXPECT_FALSE(detail.empty()) << token;
  }
}

TEST(DigestMd5, ResponseCarriesTheDirectivesZooKeeperExpectsAndRspauthIsChecked) {
  digest_md5_client client("al\"ice", "secret", "cn0nce");
  std::string response;
  ASSERT_FALSE(
      client.respond(R"(realm="zk-sasl-md5",nonce="N1",qop="auth",charset=utf-8,algorithm=md5-sess)", response));
  const std::string value = digest_response_value("al\"ice", "zk-sasl-md5", "secret", "N1", "cn0nce", true);
  EXPECT_EQ(response, R"(charset=utf-8,username="al\"ice",realm="zk-sasl-md5",nonce="N1",nc=00000001,)"
                      R"(cnonce="cn0nce",digest-uri="zookeeper/zk-sasl-md5",maxbuf=65536,response=)" +
                          value + ",qop=auth");
  EXPECT_EQ(client.verify("rspauth=00000000000000000000000000000000"), client_error::sasl_exchange_failed);
  EXPECT_NE(client.detail().find("rspauth"), std::string::npos);
  EXPECT_EQ(client.verify("something=else"), client_error::sasl_exchange_failed);
  EXPECT_FALSE(
      client.verify("rspauth=" + digest_response_value("al\"ice", "zk-sasl-md5", "secret", "N1", "cn0nce", false)));
}

TEST(DigestMd5, Latin1CharactersAreHashedAsIso88591) {
  // "é" is U+00E9: hashed as the single byte 0xE9 (RFC 2831 2.1.2.1), so both spellings agree.
  EXPECT_EQ(digest_response_value("jos\xc3\xa9", "r", "p", "n", "c", true),
            digest_response_value("jos\xe9", "r", "p", "n", "c", true));
  // A character outside ISO 8859-1 keeps the UTF-8 bytes.
  EXPECT_NE(digest_response_value("\xe2\x82\xac", "r", "p", "n", "c", true),
            digest_response_value("\xac", "r", "p", "n", "c", true));
}

}  // namespace
}  // namespace zkwire::proto::session_detail
