// scanlab/grading/wire.hpp: the messages between a grading checker and its runner.
//
// Grading is split in two processes, as programming-contest judges do it (DOMjudge's runguard and
// output validator, CMS with isolate): the RUNNER is the student's code plus a thin driver; it
// receives inputs, runs the student's kernels and sends the outputs back. The CHECKER is the
// doctest program of tests/grade/NN_slug.cu; it makes the inputs, compares the outputs with the
// oracle and alone writes the report. The student's code never runs in the checker's process and
// none of its text (macros, overloads, specialisations) reaches the checker's translation unit.
//
// A message is a JSON value encoded as CBOR (RFC 8949, through nlohmann-json), framed by its
// length as 8 little-endian bytes. Arrays travel as CBOR byte strings of their elements' bytes,
// tagged with a type name (scanlab/grading/tags.hpp), so a runner cannot hand back data of the
// wrong type unnoticed.
//
//   request  {"entry": name, "monoid": name, "params": {...}, "emu": {...}, "inputs": [array...]}
//   reply    {"status": "ok" | "invalid_argument" | "error", "message": text,
//             "outputs": [array...], "info": {...}, "fatal": bool}
//   array    {"type": tag, "bytes": <byte string>}
//
// The first request of a session is {"entry": "hello"}; the reply's info says the backend
// ("emu" or "gpu").
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "scanlab/grading/tags.hpp"

namespace scanlab::wire {

using json = nlohmann::json;

// ---- arrays ----------------------------------------------------------------------------------

template <class T>
json encode_array(const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>, "only trivially copyable types travel");
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  return json{{"type", type_tag<T>()}, {"bytes", json::binary(std::vector<std::uint8_t>(p, p + v.size() * sizeof(T)))}};
}

// Decodes an array of T; throws std::runtime_error naming `what` when it is not one.
template <class T>
std::vector<T> decode_array(const json& a, const std::string& what) {
  if (!a.is_object() || !a.contains("type") || !a.contains("bytes") || !a["bytes"].is_binary()) {
    throw std::runtime_error(what + " is not an array");
  }
  const std::string tag = a["type"].is_string() ? a["type"].get<std::string>() : "?";
  if (tag != type_tag<T>()) {
    throw std::runtime_error(what + " holds " + tag + ", expected " + type_tag<T>());
  }
  const auto& bytes = a["bytes"].get_binary();
  if (bytes.size() % sizeof(T) != 0) {
    throw std::runtime_error(what + " has " + std::to_string(bytes.size()) + " bytes, not a whole number of " + tag +
                             " elements");
  }
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(static_cast<void*>(v.data()), bytes.data(), bytes.size());
  return v;
}

// ---- framing ---------------------------------------------------------------------------------

// The largest message either side accepts: inputs of the grading tests are a few MiB.
inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t(1) << 31;

inline bool write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

inline bool read_all(int fd, void* data, std::size_t n) {
  auto* p = static_cast<std::uint8_t*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

inline std::vector<std::uint8_t> frame(const json& message) {
  std::vector<std::uint8_t> body = json::to_cbor(message);
  std::vector<std::uint8_t> out(8 + body.size());
  std::uint64_t n = body.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, body.data(), body.size());
  return out;
}

// Writes one message; false when the other side has gone.
inline bool write_message(int fd, const json& message) {
  const std::vector<std::uint8_t> bytes = frame(message);
  return write_all(fd, bytes.data(), bytes.size());
}

// Parses a message body; throws std::runtime_error on anything that is not one.
inline json parse_body(const std::vector<std::uint8_t>& body) {
  try {
    return json::from_cbor(body);
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed message: ") + e.what());
  }
}

inline std::uint64_t frame_length(const std::uint8_t header[8]) {
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(header[i]) << (8 * i);
  return n;
}

// Reads one message (blocking); nullopt at end of input. Throws on a malformed or oversized one.
inline std::optional<json> read_message(int fd) {
  std::uint8_t header[8];
  if (!read_all(fd, header, 8)) return std::nullopt;
  const std::uint64_t n = frame_length(header);
  if (n > kMaxMessageBytes) throw std::runtime_error("message of " + std::to_string(n) + " bytes is too large");
  std::vector<std::uint8_t> body(static_cast<std::size_t>(n));
  if (!read_all(fd, body.data(), body.size())) return std::nullopt;
  return parse_body(body);
}

}  // namespace scanlab::wire
