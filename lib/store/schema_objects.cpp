#include "store/schema_objects.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/count_noun.hpp"
#include "store/migrations.hpp"
#include "store/sqlite.hpp"

namespace fa4::store {
namespace {

// ANALYZE's statistics tables steer the query planner and run nothing.
constexpr std::string_view kSelectObjects =
    "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master "
    "WHERE NOT (type = 'table' AND name LIKE 'sqlite\\_stat%' ESCAPE '\\') ORDER BY type, name";

// The objects after each migration, read back from a private in-memory database migrated by the
// same SQLite that wrote the files (ALTER TABLE rewrites a table's SQL as this SQLite does).
std::vector<std::vector<SchemaObject>> objects_after_each_migration() {
  auto db = open_db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!db) throw std::logic_error("the expected schema: " + db.error().message);
  std::vector<std::vector<SchemaObject>> after;
  for (int version = 1; version <= latest_schema_version(); ++version) {
    if (auto done = apply_migration(db->get(), version); !done)
      throw std::logic_error("the expected schema: " + done.error().message);
    auto objects = read_schema_objects(db->get());
    if (!objects) throw std::logic_error("the expected schema: " + objects.error().message);
    after.push_back(std::move(objects).value());
  }
  return after;
}

// The index SQLite makes for a UNIQUE or PRIMARY KEY constraint: it has no SQL of its own.
bool is_automatic_index(const SchemaObject& object) {
  return object.type == "index" && object.sql.empty();
}

// "trigger wipe (on runs)", "view v_x".
std::string describe(const SchemaObject& object) {
  if (object.type == "index" || object.type == "trigger")
    return fmt::format("{} {} (on {})", object.type, object.name, object.table);
  return fmt::format("{} {}", object.type, object.name);
}

std::string sql_identifier(std::string_view name) {
  std::string quoted = "\"";
  for (const char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string shell_quoted(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// "TRIGGER" for "trigger": sqlite_master's types are the keywords that drop them.
std::string uppercase(std::string_view word) {
  std::string upper(word);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : std::string(separator)) + part;
  return out;
}

Error planted(const std::string& path, const std::vector<const SchemaObject*>& objects,
              std::string_view nothing_done) {
  std::vector<std::string> names, drops;
  for (const SchemaObject* object : objects) {
    names.push_back(describe(*object));
    drops.push_back(fmt::format("DROP {} IF EXISTS {};", uppercase(object->type),
                                sql_identifier(object->name)));
  }
  return Error{fmt::format(
      "results database {} holds {} fa4-analyze did not create: {}; a trigger or a view runs its "
      "SQL when the tool writes or reads the tables, so {}: see what they do with 'sqlite3 {} "
      ".schema', remove them with sqlite3 {} {} and run the command again",
      path, count_noun(static_cast<long long>(objects.size()), "schema object"),
      joined(names, ", "), nothing_done, path, path, shell_quoted(joined(drops, " ")))};
}

Error altered(const std::string& path, int version, const std::vector<std::string>& findings,
              std::string_view nothing_done) {
  return Error{fmt::format(
      "results database {} does not hold the schema fa4-analyze writes (version {}): {}; it was "
      "changed outside fa4-analyze, so {}: compare 'sqlite3 {} .schema' with lib/store/SCHEMA.md, "
      "or pass a results database fa4-analyze wrote with --db",
      path, version, joined(findings, ", "), nothing_done, path)};
}

}  // namespace

Result<std::vector<SchemaObject>> read_schema_objects(sqlite3* db) {
  auto select = Statement::prepare(db, kSelectObjects);
  if (!select) return select.error();
  std::vector<SchemaObject> objects;
  for (;;) {
    auto row = select->step();
    if (!row) return row.error();
    if (!*row) return objects;
    objects.push_back({select->column_text(0), select->column_text(1), select->column_text(2),
                       select->column_text(3)});
  }
}

const std::vector<SchemaObject>& expected_schema_objects(int version) {
  static const std::vector<std::vector<SchemaObject>> after = objects_after_each_migration();
  if (version < 1 || version > static_cast<int>(after.size()))
    throw std::logic_error(fmt::format("no schema version {}", version));
  return after[static_cast<std::size_t>(version - 1)];
}

Status check_schema_objects(const std::vector<SchemaObject>& found, const std::string& path,
                            int version, std::string_view nothing_done) {
  std::map<std::pair<std::string, std::string>, const SchemaObject*> ours;
  for (const SchemaObject& object : expected_schema_objects(version))
    ours.emplace(std::pair(object.type, object.name), &object);
  std::vector<const SchemaObject*> foreign;
  std::vector<std::string> findings;  // what differs from fa4-analyze's own objects
  for (const SchemaObject& object : found) {
    const auto it = ours.find(std::pair(object.type, object.name));
    if (it == ours.end()) {
      // SQLite's own index for a foreign table's key goes with the table (and cannot be dropped).
      if (!is_automatic_index(object)) foreign.push_back(&object);
      continue;
    }
    if (!(*it->second == object))
      findings.push_back(fmt::format("{} differs from fa4-analyze's", describe(object)));
    ours.erase(it);
  }
  for (const auto& [key, object] : ours)
    findings.push_back(fmt::format("{} is missing", describe(*object)));
  if (!findings.empty()) {
    for (const SchemaObject* object : foreign)
      findings.push_back(fmt::format("{} is not fa4-analyze's", describe(*object)));
    return altered(path, version, findings, nothing_done);
  }
  if (!foreign.empty()) return planted(path, foreign, nothing_done);
  return Ok{};
}

}  // namespace fa4::store
