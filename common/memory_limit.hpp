#pragma once
// The memory a scenario may need. Validation estimates the peak memory of a run (common/memory_limit.cpp says
// what it counts) and refuses, as bad input, a scenario whose estimate exceeds the limit, instead of letting
// it allocate gigabytes and die of std::bad_alloc. The limit is the machine's physical memory unless
// SGDSIM_MEMORY_LIMIT or --memory-limit sets it (a byte count or a unit such as "8GB"; 0 disables the check).
#include <string>
#include <utility>
#include <vector>

namespace sgdsim {

// Bytes; 0 means no limit.
double memory_limit();
// Overrides the environment and the default (from the command line).
void set_memory_limit(double bytes);
// Parses "8GB", "512MiB", "1e9" (bytes); throws InputError naming `origin` otherwise. A limit (where 0 turns
// the check off) says so in its message; a size that must be positive does not.
double parse_memory_size(const std::string& text, const std::string& origin);
double parse_memory_limit(const std::string& text, const std::string& origin);
// "3.2 GB".
std::string memory_text(double bytes);

// The parts of an estimate, each with what it is for.
using MemoryParts = std::vector<std::pair<std::string, double>>;
// Throws InputError starting with `where` when the parts add up to more than the limit, listing the largest
// parts and the limit, and saying how to raise it.
void require_memory(const MemoryParts& parts, const std::string& where);

}  // namespace sgdsim
