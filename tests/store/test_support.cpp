#include "test_support.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "store/migrations.hpp"

namespace fa4::store::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "fa4-store-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

Db raw_open(const std::string& path) {
  auto db = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!db) throw std::runtime_error(db.error().message);
  return std::move(db).value();
}

Db raw_open_at_version(const std::string& path, int version) {
  Db db = raw_open(path);
  for (int step = 1; step <= version; ++step)
    if (auto done = apply_migration(db.get(), step); !done)
      throw std::runtime_error(done.error().message);
  return db;
}

void raw_exec(sqlite3* db, const std::string& sql) {
  if (auto done = exec(db, sql); !done) throw std::runtime_error(done.error().message);
}

Store memory_store() {
  auto store = Store::open(":memory:");
  if (!store) throw std::runtime_error(store.error().message);
  return std::move(store).value();
}

Value first_cell(const Store& store, const std::string& sql) {
  auto table = store.query(sql);
  EXPECT_TRUE(table.ok()) << table.error().message;
  if (!table || table->rows.empty() || table->rows[0].empty())
    throw std::runtime_error("no cell from " + sql);
  return table->rows[0][0];
}

std::int64_t first_integer(const Store& store, const std::string& sql) {
  return std::get<std::int64_t>(first_cell(store, sql));
}

RunInfo run_info(RunKind kind, std::string revision) {
  RunInfo info;
  info.kind = kind;
  info.revision = std::move(revision);
  info.host = "test";
  info.command_line = "store_tests";
  return info;
}

model::Prediction sample_prediction() {
  model::Prediction p;
  p.shape = {.batch = 2,
             .heads_q = 32,
             .heads_kv = 8,
             .seqlen_q = 1024,
             .seqlen_k = 3072,
             .headdim = 128,
             .headdim_v = 64,
             .causal = true,
             .dtype = Dtype::fp16};
  p.gpu = "b200";
  p.algorithm = model::Algorithm::fa3;
  p.pass = Pass::bwd;
  p.tile = {.m = 192, .n = 96};
  p.exp_emulation = 0.125;
  p.conditional_rescale = true;
  p.two_cta = true;
  p.tile_cycles.mma = 1.5;
  p.tile_cycles.exp_mufu = 2.5;
  p.tile_cycles.exp_fma = 3.5;
  p.tile_cycles.fma = 4.5;
  p.tile_cycles.smem = 5.5;
  p.tile_cycles.tmem = 6.5;
  p.tile_cycles.tmem_bytes = 7.5;
  p.tile_cycles.hbm = 8.5;
  p.tile_cycles.bottleneck = model::Unit::smem;
  p.tile_time_cycles = 9.5;
  p.tensor_stream_cycles = 10.5;
  p.softmax_stream_cycles = 11.5;
  p.ctas = 12.5;
  p.tiles = 13.5;
  p.waves = 14.5;
  p.time_s = 15.5e-3;
  p.flops = 16.5e12;
  p.tflops = 17.5;
  p.fraction_of_peak = 0.185;
  p.bottleneck = model::Unit::hbm;
  p.factors = {{"overlap", 0.75, "share of the shorter stream hidden", "H200 hd128 8k"},
               {"fma_ops", 3.5, "FP32 instructions per element", ""}};
  p.model_version = "test-7";
  return p;
}

}  // namespace fa4::store::testing
