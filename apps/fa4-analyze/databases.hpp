// The results databases a reading command takes: --db given more than once (--db a.db --db
// b.db), or naming a folder (its *.db files, by name), read one after the other, each labelled
// with the path it was given as. query, runs, report and compare read several; the writers and
// the other readers take one and refuse several (open_store.hpp).
#pragma once

#include <string>
#include <vector>

#include "context.hpp"
#include "store/store.hpp"

namespace fa4::app {

// Whether --db names more than one database: given twice or more, or a folder.
bool several_databases(const Context& ctx);

// The files --db names, in the order given, a folder's *.db by name. Throws UserError for a
// missing path, a folder without a .db file and a database named twice.
std::vector<std::string> database_paths(const Context& ctx);

struct LabelledStore {
  std::string label;  // the path, as given or as found in the folder
  store::Store store;
};

// Every database of database_paths(), each opened as open_store_for_reading() opens one (a damaged
// one read with a warning naming it); one database (not several_databases()) exactly as
// open_store_for_reading() opens it. Throws UserError naming the database that cannot be read,
// with the fix, before anything is read.
std::vector<LabelledStore> open_databases_for_reading(const Context& ctx);

// The refusal of several databases by a command that reads or writes one (open_store.hpp).
void refuse_several_databases(const Context& ctx);

}  // namespace fa4::app
