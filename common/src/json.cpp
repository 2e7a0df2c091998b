// scanlab::Json (scanlab/json.hpp) written out by nlohmann-json: compiled once, here, so that no
// chapter program compiles nlohmann's parser and serializer itself.
#include "scanlab/json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace scanlab {

// The conversion to nlohmann's value types: nlohmann::json (keys sorted) or
// nlohmann::ordered_json (keys in the order they were set).
struct JsonAccess {
  template <class Out>
  static Out convert(const Json& j) {
    return std::visit(
        [](const auto& v) -> Out {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, Json::Array>) {
            Out out = Out::array();
            for (const Json& e : v) out.push_back(convert<Out>(e));
            return out;
          } else if constexpr (std::is_same_v<V, Json::Object>) {
            Out out = Out::object();
            for (const auto& [key, value] : v) out[key] = convert<Out>(value);
            return out;
          } else {
            return Out(v);
          }
        },
        j.value_);
  }
  static Json::Object& object(Json& j) {
    if (j.is_null()) j.value_ = Json::Object{};
    if (!j.is_object()) throw std::logic_error("scanlab::Json: a member of a value that is not an object");
    return std::get<Json::Object>(j.value_);
  }
};

Json& Json::operator[](const std::string& key) {
  Object& members = JsonAccess::object(*this);
  for (auto& [k, v] : members) {
    if (k == key) return v;
  }
  members.emplace_back(key, Json());
  return members.back().second;
}

const Json& Json::operator[](const std::string& key) const {
  for (const auto& [k, v] : members()) {
    if (k == key) return v;
  }
  throw std::out_of_range("scanlab::Json: no member '" + key + "'");
}

void Json::push_back(Json value) {
  if (is_null()) value_ = Array{};
  if (!std::holds_alternative<Array>(value_)) throw std::logic_error("scanlab::Json: push_back on a non-array");
  std::get<Array>(value_).push_back(std::move(value));
}

const Json::Object& Json::members() const {
  if (!is_object()) throw std::logic_error("scanlab::Json: members of a value that is not an object");
  return std::get<Object>(value_);
}

Json Json::sorted() const {
  if (const auto* array = std::get_if<Array>(&value_)) {
    Array out;
    for (const Json& e : *array) out.push_back(e.sorted());
    return Json(std::move(out));
  }
  if (const auto* object = std::get_if<Object>(&value_)) {
    Object out;
    for (const auto& [key, value] : *object) out.emplace_back(key, value.sorted());
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.first < b.first;
    });
    return Json(std::move(out));
  }
  return *this;
}

std::string Json::dump(int indent) const { return JsonAccess::convert<nlohmann::json>(*this).dump(indent); }

std::string Json::dump_in_order() const { return JsonAccess::convert<nlohmann::ordered_json>(*this).dump(); }

}  // namespace scanlab
