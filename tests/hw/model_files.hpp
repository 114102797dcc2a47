// Test helpers: the shipped models/ folder and its models, and a temporary folder to write model
// files into.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/loader.hpp"

namespace fa4::hw::testing {

inline std::filesystem::path shipped_models_dir() {
  return std::filesystem::path(FA4_SOURCE_DIR) / "models";
}

// Loaded once; the tests that use it fail loudly (Result::value throws) if models/ is broken.
inline const std::vector<Spec>& shipped_specs() {
  static const std::vector<Spec> specs = load_all_specs(shipped_models_dir()).value();
  return specs;
}

inline nlohmann::ordered_json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::ordered_json::parse(in);
}

// A fresh folder per test, removed afterwards.
class TempModels {
 public:
  TempModels() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("fa4-hw-") + test->test_suite_name() + "-" + test->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempModels() { std::filesystem::remove_all(dir_); }
  TempModels(const TempModels&) = delete;
  TempModels& operator=(const TempModels&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  std::filesystem::path write_text(const std::string& name, const std::string& text) const {
    const std::filesystem::path file = dir_ / name;
    std::ofstream(file) << text;
    return file;
  }
  std::filesystem::path write_json(const std::string& name,
                                   const nlohmann::ordered_json& json) const {
    return write_text(name, json.dump(2));
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace fa4::hw::testing
