#include "databases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "open_store.hpp"
#include "user_error.hpp"

namespace fa4::app {
namespace {

namespace fs = std::filesystem;

// The --db values: as given, or the one default (FA4_DB, fa4-results.db).
std::vector<std::string> given(const Context& ctx) {
  return ctx.db_args.empty() ? std::vector<std::string>{ctx.db_path} : ctx.db_args;
}

constexpr std::string_view kFix =
    "fix it or leave it out (--db takes database files or a folder of them, repeatable)";

}  // namespace

bool several_databases(const Context& ctx) {
  std::error_code ec;
  return ctx.db_args.size() > 1 ||
         (ctx.db_args.size() == 1 && fs::is_directory(ctx.db_args.front(), ec));
}

std::vector<std::string> database_paths(const Context& ctx) {
  std::vector<std::string> out;
  for (const std::string& arg : given(ctx)) {
    std::error_code ec;
    if (!fs::exists(arg, ec))
      throw UserError(fmt::format("--db {}: no such file or folder; {}", arg, kFix));
    if (!fs::is_directory(arg, ec)) {
      out.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    for (fs::directory_iterator it(arg, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
      if (it->path().extension() == ".db" && !fs::is_directory(it->path(), ec))
        found.push_back(it->path().string());
    if (ec)
      throw UserError(fmt::format("--db {}: cannot list the folder: {}; {}", arg, ec.message(), kFix));
    if (found.empty())
      throw UserError(fmt::format(
          "--db {}: the folder holds no .db file; name a folder of results databases, or the "
          "database files themselves",
          arg));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (fs::equivalent(out[i], out[j], ec))
        throw UserError(fmt::format(
            "--db names {} twice{}: its rows would be counted twice; name each database once",
            out[i], out[i] == out[j] ? "" : fmt::format(" (as {} and {})", out[j], out[i])));
    }
  return out;
}

std::vector<LabelledStore> open_databases_for_reading(const Context& ctx) {
  std::vector<LabelledStore> out;
  if (!several_databases(ctx)) {
    out.push_back({ctx.db_path, open_store_for_reading(ctx)});
    return out;
  }
  const std::vector<std::string> paths = database_paths(ctx);
  for (const std::string& path : paths) {
    Context one = ctx;
    one.db_path = path;
    one.db_args = {path};
    try {
      out.push_back({path, open_store_for_reading(one)});
    } catch (const UserError& e) {
      if (paths.size() == 1) throw;
      throw UserError(fmt::format("{} ({} is one of the {} databases --db names: fix it or leave it out)",
                                  e.what(), path, paths.size()));
    }
  }
  return out;
}

void refuse_several_databases(const Context& ctx) {
  if (!several_databases(ctx)) return;
  std::string named;
  for (const std::string& arg : ctx.db_args) named += (named.empty() ? "" : ", ") + arg;
  throw UserError(fmt::format(
      "--db names several databases ({}); this command reads or writes one: name one database "
      "(query, runs, report and compare read several)",
      named));
}

}  // namespace fa4::app
