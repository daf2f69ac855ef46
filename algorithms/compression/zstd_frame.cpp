#include "algorithms/compression/zstd_frame.hpp"

#include <zstd.h>

#include <memory>
#include <stdexcept>

#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
struct ContextFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
// Reused from message to message (the encoder is on the simulator's hot path).
thread_local std::unique_ptr<ZSTD_CCtx, ContextFree> compress_context;
thread_local std::unique_ptr<ZSTD_DCtx, ContextFree> decompress_context;

[[noreturn]] void fail(const std::string& format, const std::string& what, std::size_t offset,
                       std::size_t size) {
  throw DecodeError(format + " decoder: " + what + " at byte offset " + std::to_string(offset) + " of " +
                    std::to_string(size));
}
}  // namespace

void append_zstd_frame(std::span<const std::uint8_t> stream, Bytes& out, int level) {
  if (!compress_context) compress_context.reset(ZSTD_createCCtx());
  const std::size_t at = out.size();
  out.resize(at + ZSTD_compressBound(stream.size()));
  const std::size_t written = ZSTD_compressCCtx(compress_context.get(), out.data() + at, out.size() - at,
                                                stream.data(), stream.size(), level);
  if (ZSTD_isError(written)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(written));
  out.resize(at + written);
}

void read_zstd_frame(std::span<const std::uint8_t> message, std::size_t start, std::size_t expected,
                     Bytes& stream, const std::string& format) {
  if (start > message.size()) fail(format, "message shorter than its header", message.size(), message.size());
  const std::uint8_t* frame = message.data() + start;
  const std::size_t available = message.size() - start;
  const unsigned long long declared = ZSTD_getFrameContentSize(frame, available);
  if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN)
    fail(format, "corrupt zstd frame header", start, message.size());
  if (declared != expected)
    fail(format,
         "zstd frame declares " + std::to_string(declared) + " bytes, the stream has " +
             std::to_string(expected),
         start, message.size());
  const std::size_t length = ZSTD_findFrameCompressedSize(frame, available);
  if (ZSTD_isError(length))
    fail(format, std::string("corrupt zstd frame (") + ZSTD_getErrorName(length) + ")", start,
         message.size());
  if (length != available)
    fail(format, std::to_string(available - length) + " trailing bytes after the zstd frame", start + length,
         message.size());
  if (!decompress_context) decompress_context.reset(ZSTD_createDCtx());
  stream.resize(expected);
  const std::size_t got =
      ZSTD_decompressDCtx(decompress_context.get(), stream.data(), expected, frame, length);
  if (ZSTD_isError(got))
    fail(format, std::string("corrupt zstd frame (") + ZSTD_getErrorName(got) + ")", start, message.size());
  if (got != expected)
    fail(format, "zstd frame holds " + std::to_string(got) + " bytes, not " + std::to_string(expected), start,
         message.size());
}

}  // namespace sgdsim::compression
