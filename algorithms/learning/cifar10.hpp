#pragma once
// CIFAR-10 (Krizhevsky 2009) in its binary version: 50000 training images in data_batch_1.bin ...
// data_batch_5.bin and 10000 test images in test_batch.bin, 32x32 colour pixels, 10 classes. Each record is
// one label byte followed by 3072 pixel bytes: the red, green and blue planes, each 32 rows of 32, which is
// already the channels x height x width layout of Dataset::image.
#include <string>
#include <vector>

#include "algorithms/learning/dataset.hpp"

namespace sgdsim::learning {

inline constexpr std::size_t cifar10_record_bytes = 1 + 3 * 32 * 32;

// Parses the records of one batch file read from `origin` (used in messages): pixels scaled to [0, 1],
// Dataset::image 3x32x32, 10 classes. InputError naming `origin` and the byte offset for an empty file, a
// length that is not a whole number of records (truncated or trailing bytes), or a label above 9.
Dataset parse_cifar10(const std::vector<unsigned char>& bytes, const std::string& origin);

// Reads one (possibly gzip-compressed) batch file.
Dataset read_cifar10_file(const std::string& path);

// Reads the five training batches and the test batch from `dir`, the folder cifar-10-batches-bin that
// cifar-10-binary.tar.gz unpacks to. A missing file is an InputError naming it.
Problem load_cifar10(const std::string& dir);

}  // namespace sgdsim::learning
