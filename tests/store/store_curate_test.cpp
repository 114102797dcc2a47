// curate (store/curate.hpp): the record of a device holds the latest row of each problem and unit
// of its sources, as the report merges them, with the runs they come from (revision, start time,
// host, the source named in the notes), at the sources' schema; the sources are left byte for byte.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "store/curate.hpp"
#include "store/migrations.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"
#include "test_support.hpp"

namespace fa4::store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TempDir;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Two real runs of one revision on the lent H200 (tests/data/runs), copied: the first measured
// fa3 and fa4 with the peers, the second, later, the whole ladder (naive to fa4) with them.
struct Sources {
  TempDir dir;
  std::vector<CurateSource> sources;
  Sources() {
    for (const char* name : {"2026-11-23-h200.db", "2026-11-23-h200-final.db"}) {
      const std::string copy = dir.file(name);
      fs::copy_file(fs::path(FA4_SOURCE_DIR) / "tests/data/runs" / name, copy);
      sources.push_back({copy, name});
    }
  }
};

std::vector<MeasurementRow> latest_of(const std::string& path) {
  auto db = Store::open(path, {.create = false, .read_only = true});
  EXPECT_TRUE(db.ok()) << db.error().message;
  return std::move(db->measurements_for_report()).value();
}

TEST(Curate, KeepsTheLatestOfEachProblemWithItsRunAndLeavesTheSourcesAsTheyWere) {
  Sources s;
  const std::string first = bytes_of(s.sources[0].path), second = bytes_of(s.sources[1].path);
  const std::string out = s.dir.file("h200.db");
  auto n = curate(s.sources, "NVIDIA H200", out);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(bytes_of(s.sources[0].path), first);
  EXPECT_EQ(bytes_of(s.sources[1].path), second);
  EXPECT_FALSE(fs::exists(s.sources[0].path + "-shm"));

  // The second source re-measured every problem of the first later: the record is its rows.
  const std::vector<MeasurementRow> record = latest_of(out), later = latest_of(s.sources[1].path);
  ASSERT_EQ(record.size(), later.size());
  EXPECT_EQ(n->measurements, static_cast<std::int64_t>(record.size()));
  for (std::size_t i = 0; i < record.size(); ++i) {
    EXPECT_EQ(record[i].kernel, later[i].kernel);
    EXPECT_EQ(record[i].source, later[i].source);
    EXPECT_EQ(describe(record[i].shape), describe(later[i].shape));
    EXPECT_EQ(record[i].pass, later[i].pass);
    EXPECT_EQ(record[i].started_at, later[i].started_at);
    EXPECT_EQ(record[i].revision, later[i].revision);
    EXPECT_EQ(record[i].median_s, later[i].median_s);
    EXPECT_EQ(record[i].samples_s, later[i].samples_s);
  }
  auto db = Store::open(out, {.create = false, .read_only = true});
  ASSERT_TRUE(db.ok());
  const std::vector<RunRow> runs = std::move(db->list_runs()).value();
  ASSERT_FALSE(runs.empty());
  for (const RunRow& r : runs) {
    EXPECT_THAT(r.notes, HasSubstr("curated from 2026-11-23-h200-final.db run ")) << r.id;
    EXPECT_EQ(r.host, "vm");
  }
  // Written at the sources' schema (4), so that a build that reads them reads it.
  auto raw = open_db(out, SQLITE_OPEN_READONLY);
  ASSERT_TRUE(raw.ok());
  auto version = read_schema_version(raw->get());
  ASSERT_TRUE(version.ok() && version->has_value());
  EXPECT_EQ(**version, 4);
  EXPECT_EQ(n->ceilings, 7);
  EXPECT_EQ(std::move(db->latest_ceilings()).value().size(), 7u);
}

TEST(Curate, RefusesAnExistingRecordAndADeviceNoSourceMeasured) {
  Sources s;
  const std::string out = s.dir.file("h200.db");
  std::ofstream(out) << "kept";
  auto exists = curate(s.sources, "NVIDIA H200", out);
  ASSERT_FALSE(exists.ok());
  EXPECT_THAT(exists.error().message, HasSubstr("exists"));
  EXPECT_EQ(bytes_of(out), "kept");
  const std::string other = s.dir.file("b200.db");
  auto none = curate(s.sources, "NVIDIA B200", other);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.error().message, HasSubstr("no source holds a measurement"));
  EXPECT_FALSE(fs::exists(other));
}

}  // namespace
}  // namespace fa4::store
