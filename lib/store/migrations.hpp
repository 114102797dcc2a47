// The results database schema, as an ordered list of forward migrations. Migration N takes a
// database from schema version N - 1 to N; the schema_version table lists those applied.
#pragma once

#include <sqlite3.h>

#include <optional>

#include "core/error.hpp"

namespace fa4::store {

// The schema version this build writes.
int latest_schema_version();

// The highest version in schema_version; nullopt when the database has no schema_version table.
Result<std::optional<int>> read_schema_version(sqlite3* db);

// Applies migration `version` in one transaction and records it in schema_version. Does nothing
// when the database already has it (another process migrated first); refuses to skip a version.
Status apply_migration(sqlite3* db, int version);

}  // namespace fa4::store
