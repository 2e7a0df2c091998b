// scanlab/json.hpp: a JSON value as the chapter programs build their reports and trace lines,
// without nlohmann-json in the program's own file. nlohmann-json is header-only: in chapter 03's
// driver it was 472 functions of the object, compiled again at each edit of the exercise. A Json
// holds the values; writing it out (dump) is nlohmann's, in common/src/json.cpp, compiled once
// into the scanlab_driver library, so the text is what nlohmann writes.
//
//   scanlab::Json report = {{"chapter", "03_bank_conflicts"}, {"n", n}, {"verified", check.ok}};
//   report["timing"]["median_ms"] = 0.25;               // members are made as they are named
//   report["results"] = scanlab::Json::array();
//   report["results"].push_back({{"variant", "host_loop"}});
//   file << report.dump(2);                             // keys sorted, as nlohmann::json
//   trace << line.dump_in_order();                      // keys in the order they were set
//
// Numbers keep their kind: a signed integer, an unsigned one, or a double (a float is widened).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace scanlab {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // in the order the keys were set

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool v) : value_(v) {}
  Json(int v) : value_(std::int64_t{v}) {}
  Json(long v) : value_(std::int64_t{v}) {}
  Json(long long v) : value_(std::int64_t{v}) {}
  Json(unsigned v) : value_(std::uint64_t{v}) {}
  Json(unsigned long v) : value_(std::uint64_t{v}) {}
  Json(unsigned long long v) : value_(std::uint64_t{v}) {}
  Json(float v) : value_(double{v}) {}
  Json(double v) : value_(v) {}
  Json(const char* v) : value_(std::string(v)) {}
  Json(std::string v) : value_(std::move(v)) {}
  // An array of the values.
  template <class T>
  Json(const std::vector<T>& values) : value_(Array(values.begin(), values.end())) {}
  // An object: {{"key", value}, ...}.
  Json(std::initializer_list<std::pair<std::string, Json>> members) : value_(Object(members)) {}

  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }
  // An array of these values: Json::array_of({3, 1}).
  static Json array_of(std::initializer_list<Json> values) { return Json(Array(values)); }

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
  bool is_object() const { return std::holds_alternative<Object>(value_); }

  // An object's member, made (null) when it is not there yet; a null becomes an object.
  Json& operator[](const std::string& key);
  // A member that must be there (std::out_of_range otherwise).
  const Json& operator[](const std::string& key) const;
  // Appends to an array; a null becomes an array.
  void push_back(Json value);
  // The members of an object, in the order they were set.
  const Object& members() const;

  // A copy with the keys of every object, at every level, in sorted order (as nlohmann::json
  // keeps them): for a line written in order that holds values a reader knew sorted.
  Json sorted() const;

  // The text, as nlohmann::json writes it: keys sorted at every level; indent < 0 is one line.
  std::string dump(int indent = -1) const;
  // One line, keys in the order they were set (the lines of a trace).
  std::string dump_in_order() const;

 private:
  explicit Json(Array a) : value_(std::move(a)) {}
  explicit Json(Object o) : value_(std::move(o)) {}
  friend struct JsonAccess;  // json.cpp's conversion to nlohmann's types
  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, Array, Object> value_;
};

}  // namespace scanlab
