#pragma once
// Convenience header: the whole Jute codec.
#include "zkwire/jute/error.hpp"
#include "zkwire/jute/limits.hpp"
#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"
