// doc_snippets SERVERS: runs the examples of README.md and of the public headers (doc_snippets.cpp) against
// SERVERS, a connect string with a chroot that exists and is empty, e.g. "127.0.0.1:2181/doc-snippets".
// Exit status 0 when every example did what it shows, 1 otherwise.

#include <cstdio>
#include <exception>

#include "doc_snippets.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: doc_snippets HOST:PORT/CHROOT\n");
    return 2;
  }
  try {
    zkwire_examples::run_doc_snippets(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "doc_snippets: %s\n", e.what());
    return 1;
  }
  std::printf("doc_snippets: every example ran\n");
  return 0;
}
