#pragma once
// Tracks the largest single allocation made through operator new in this test binary, so tests can show that
// hostile lengths are rejected before anything of that size is allocated. (The replacement operators live in
// allocation_probe.cpp, a TU of their own so the compiler never inlines them into callers.)

#include <cstddef>

namespace zkwire::proto::test {

void reset_largest_allocation() noexcept;
std::size_t largest_allocation() noexcept;

}  // namespace zkwire::proto::test
