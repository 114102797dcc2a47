// The schema objects of a results database (sqlite_master) against those fa4-analyze's migrations
// create. A trigger, a view or a table default runs its SQL when the tool writes or reads, so a
// database's schema is code that came with the file: a planted trigger could delete every earlier
// run on the next write. The store opens only a database whose objects are exactly its own.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace fa4::store {

// One row of sqlite_master.
struct SchemaObject {
  std::string type;  // table, index, view, trigger
  std::string name;
  std::string table;  // tbl_name: the table an index or trigger belongs to
  std::string sql;    // "" for SQLite's automatic indexes
  friend bool operator==(const SchemaObject&, const SchemaObject&) = default;
};

// The objects of `db`, SQLite's statistics tables (which ANALYZE adds, and which run nothing)
// aside, ordered by type and name.
Result<std::vector<SchemaObject>> read_schema_objects(sqlite3* db);

// What migrations 1 to `version` (1..latest_schema_version()) create, ordered by type and name.
const std::vector<SchemaObject>& expected_schema_objects(int version);

// Ok when `found`, the objects of the database at `path`, are exactly those of its schema
// `version`. Otherwise an error naming each object fa4-analyze did not create, with the sqlite3
// command that removes them, or each of its own that differs or is missing; `nothing_done`
// ("nothing was read") ends its reason.
Status check_schema_objects(const std::vector<SchemaObject>& found, const std::string& path,
                            int version, std::string_view nothing_done);

}  // namespace fa4::store
