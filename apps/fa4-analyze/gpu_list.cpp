#include "gpu_list.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hw/loader.hpp"
#include "user_error.hpp"

namespace fa4::app {

std::vector<const hw::Spec*> find_gpus(const std::vector<hw::Spec>& specs, const std::string& text) {
  std::vector<const hw::Spec*> out;
  if (text == "all") {
    for (const hw::Spec& spec : specs) out.push_back(&spec);
    if (out.empty()) throw UserError("--gpu all: no hardware models loaded; check --models");
    return out;
  }
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    const std::string entry = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (entry.empty())
      throw UserError(fmt::format(
          "--gpu '{}': an empty entry; give GPU models separated by single commas "
          "(--gpu h100,h200,b200) or --gpu all",
          text));
    auto found = hw::find_spec(specs, entry);
    if (!found)
      throw UserError(text.find(',') == std::string::npos
                          ? found.error().message
                          : fmt::format("--gpu {}: {}", text, found.error().message));
    if (std::find(out.begin(), out.end(), *found) != out.end())
      throw UserError(fmt::format("--gpu {}: '{}' names {}, named already; name each GPU once",
                                  text, entry, (*found)->id));
    out.push_back(*found);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace fa4::app
