// Strict reading of JSON input files: nlohmann-json keeps the last of two equal keys and a
// parser ignores keys it does not know, so a typo ("casual" for "causal") or a repeated key
// would change the input silently. These helpers refuse both, naming the JSON pointer.
#pragma once

#include <initializer_list>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace fa4 {

// Parses JSON text; a syntax error or a key given twice in one object is an error that starts
// with `origin` (the file's name) and names the place.
Result<nlohmann::json> parse_json_without_duplicate_keys(std::string_view text,
                                                         const std::string& origin);

// For readers that word syntax errors their own way: parses `text` into `doc` (throwing
// nlohmann::json's exceptions, as json::parse does) and returns, for the first key given twice in
// one object, "/pointer/to/key: duplicate key \"key\"; ..." (what to do included), or nothing.
std::optional<std::string> parse_json_noting_duplicate_key(std::string_view text,
                                                           nlohmann::json& doc);

// Refuses a key of `object` that is not in `allowed`, naming its pointer (`where` + "/" + key),
// the nearest allowed key and all of them.
Status check_known_keys(const nlohmann::json& object,
                        std::initializer_list<std::string_view> allowed, const std::string& where);

}  // namespace fa4
