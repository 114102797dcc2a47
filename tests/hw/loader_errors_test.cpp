// Every way a model file can be wrong, and the message that says where and what was expected:
// "<file>: <JSON pointer>: expected ...".
#include <gtest/gtest.h>

#include <string>

#include "hw/loader.hpp"
#include "model_files.hpp"

namespace fa4::hw {
namespace {

using nlohmann::ordered_json;

class LoaderErrors : public ::testing::Test {
 protected:
  // The shipped b200.json, to be broken one field at a time.
  ordered_json b200 = testing::read_json(testing::shipped_models_dir() / "b200.json");
  testing::TempModels temp;

  // The error loading `json` as b200.json gives, with the file's path replaced by "b200.json".
  std::string error_of(const ordered_json& json) const {
    return error_of_file(temp.write_json("b200.json", json));
  }

  std::string error_of_file(const std::filesystem::path& file) const {
    const Result<Spec> spec = load_spec(file);
    if (spec) return "loaded";
    std::string message = spec.error().message;
    const std::string path = file.string();
    if (message.starts_with(path)) message.replace(0, path.size(), file.filename().string());
    return message;
  }
};

TEST_F(LoaderErrors, ShippedFileLoadsWithItsStemAsId) {
  const Result<Spec> spec = load_spec(temp.write_json("my-gpu.json", b200));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->id, "my-gpu");
  EXPECT_EQ(spec->per_sm.mufu_ex2_per_clk, 16);
}

TEST_F(LoaderErrors, MalformedJsonNamesLineColumnAndByte) {
  const std::string message =
      error_of_file(temp.write_text("b200.json", "{\n  \"name\": \"x\",\n  \"sms\" 148\n}\n"));
  EXPECT_TRUE(
      message.starts_with("b200.json: line 3, column 11 (byte 28): invalid JSON: syntax "
                          "error while parsing object separator"))
      << message;
}

// Found by fuzz_model_file: a number beyond a double's range threw out of the loader.
TEST_F(LoaderErrors, NumberTooLargeForADoubleIsAnErrorNotACrash) {
  const std::string message = error_of_file(
      temp.write_text("b200.json", "{\n  \"sms\": {\"value\": 4.8e2026, \"source\": \"x\"}\n}\n"));
  EXPECT_TRUE(message.starts_with("b200.json: invalid JSON: ")) << message;
  EXPECT_NE(message.find("4.8e2026"), std::string::npos) << message;
  EXPECT_NE(message.find("write the figure as a finite number"), std::string::npos) << message;
}

TEST_F(LoaderErrors, MissingFileSaysSo) {
  EXPECT_EQ(error_of_file(temp.dir() / "absent.json"),
            "cannot read " + (temp.dir() / "absent.json").string() +
                ": no such file; check the path (the shipped models are models/*.json)");
}

TEST_F(LoaderErrors, MissingFigure) {
  b200["per_sm"].erase("mufu_ex2_per_clk");
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mufu_ex2_per_clk: missing; expected a positive number");
}

TEST_F(LoaderErrors, NegativeNumber) {
  b200["per_sm"]["mufu_ex2_per_clk"]["value"] = -16;
  EXPECT_EQ(error_of(b200), "b200.json: /per_sm/mufu_ex2_per_clk: expected a positive number");
}

TEST_F(LoaderErrors, ZeroWhereTheUnitMustExist) {
  b200["per_sm"]["mufu_ex2_per_clk"]["value"] = 0;
  EXPECT_EQ(error_of(b200), "b200.json: /per_sm/mufu_ex2_per_clk: expected a positive number");
}

TEST_F(LoaderErrors, WrongTypeOfValue) {
  b200["per_sm"]["mufu_ex2_per_clk"]["value"] = "16";
  EXPECT_EQ(error_of(b200), "b200.json: /per_sm/mufu_ex2_per_clk: expected a positive number");
  b200["per_sm"]["mufu_ex2_per_clk"]["value"] = true;
  EXPECT_EQ(error_of(b200), "b200.json: /per_sm/mufu_ex2_per_clk: expected a positive number");
}

TEST_F(LoaderErrors, BareNumberInsteadOfValueAndSource) {
  b200["per_sm"]["mufu_ex2_per_clk"] = 16;
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mufu_ex2_per_clk: expected {\"value\": <a positive number>, "
            "\"source\": \"<a citation: paper section, datasheet or whitepaper, or \"derived: "
            "<arithmetic>\">\"}");
}

TEST_F(LoaderErrors, MissingValueKey) {
  b200["per_sm"]["mufu_ex2_per_clk"].erase("value");
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mufu_ex2_per_clk/value: missing; expected a positive number");
}

TEST_F(LoaderErrors, NoneIsAllowedOnlyForFp8AndTensorMemory) {
  b200["per_sm"]["mma_flop_per_clk_fp8"]["value"] = 0;
  b200["per_sm"]["tmem_bytes"]["value"] = 0;
  EXPECT_EQ(error_of(b200), "loaded");
  b200["per_sm"]["mma_flop_per_clk_fp8"]["value"] = -1;
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mma_flop_per_clk_fp8: expected a non-negative number");
  b200["per_sm"]["mma_flop_per_clk_fp8"]["value"] = 16384;
  b200["per_sm"]["mma_flop_per_clk_bf16"]["value"] = 0;
  EXPECT_EQ(error_of(b200), "b200.json: /per_sm/mma_flop_per_clk_bf16: expected a positive number");
}

TEST_F(LoaderErrors, CountsAreWholeNumbers) {
  b200["sms"]["value"] = 148.5;
  EXPECT_EQ(error_of(b200), "b200.json: /sms: expected a positive integer");
}

TEST_F(LoaderErrors, SourceMissingOrBlank) {
  b200["per_sm"]["mufu_ex2_per_clk"].erase("source");
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mufu_ex2_per_clk/source: missing; expected a citation: paper "
            "section, datasheet or whitepaper, or \"derived: <arithmetic>\"");
  b200["per_sm"]["mufu_ex2_per_clk"]["source"] = "  ";
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mufu_ex2_per_clk/source: expected a citation: paper section, "
            "datasheet or whitepaper, or \"derived: <arithmetic>\"");
}

TEST_F(LoaderErrors, UnknownFieldsAreTyposUntilProvenOtherwise) {
  b200["per_sm"]["mufu_ex2_per_clock"] = b200["per_sm"]["mufu_ex2_per_clk"];
  EXPECT_EQ(error_of(b200),
            "b200.json: /per_sm/mufu_ex2_per_clock: unknown field; expected one of "
            "mma_flop_per_clk_bf16, mma_flop_per_clk_fp16, mma_flop_per_clk_fp8, "
            "mufu_ex2_per_clk, fma_lanes_per_clk, smem_bytes_per_clk, smem_capacity_bytes, "
            "tmem_bytes, registers, max_registers_per_thread");
}

TEST_F(LoaderErrors, IdComesFromTheFileNameOnly) {
  b200["id"] = "b200";
  EXPECT_TRUE(error_of(b200).starts_with("b200.json: /id: unknown field; expected one of name, "))
      << error_of(b200);
}

TEST_F(LoaderErrors, ExtraKeyInsideAFigure) {
  b200["sms"]["note"] = "x";
  EXPECT_EQ(error_of(b200), "b200.json: /sms/note: unknown field; expected one of value, source");
}

TEST_F(LoaderErrors, MeasuredEfficienciesAreOptionalFractions) {
  b200.erase("gemm_efficiency");
  const Result<Spec> spec = load_spec(temp.write_json("b200.json", b200));
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->gemm_efficiency, 1.0);
  EXPECT_TRUE(source_of(*spec, "/gemm_efficiency").starts_with("not measured"));
  b200["gemm_efficiency"] = {{"value", 1.2}, {"source", "derived: 1.2"}};
  EXPECT_EQ(error_of(b200), "b200.json: /gemm_efficiency: expected a number in (0, 1]");
}

// A board's sustained clock share is optional too: without it the model keeps the peak clock.
TEST_F(LoaderErrors, SustainedClockShareIsAnOptionalFraction) {
  b200.erase("sustained_clock_share");
  const Result<Spec> spec = load_spec(temp.write_json("b200.json", b200));
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->sustained_clock_share, 1.0);
  EXPECT_TRUE(source_of(*spec, "/sustained_clock_share").starts_with("not fitted"));
  b200["sustained_clock_share"] = {{"value", 0}, {"source", "fitted: none"}};
  EXPECT_EQ(error_of(b200), "b200.json: /sustained_clock_share: expected a number in (0, 1]");
}

TEST_F(LoaderErrors, ArchitectureIsAKnownFamily) {
  ordered_json broken = b200;
  broken["architecture"] = "volta";
  EXPECT_EQ(error_of(broken),
            "b200.json: /architecture: unknown architecture 'volta'; expected one of ampere, "
            "hopper, blackwell, blackwell-ultra");
  broken["architecture"] = "Blackwell";  // names are lower case, as written in the files
  EXPECT_NE(error_of(broken).find("unknown architecture 'Blackwell'"), std::string::npos);
  broken["architecture"] = "blackwell-ultra";
  const Result<Spec> spec = load_spec(temp.write_json("b200.json", broken));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->architecture, Architecture::blackwell_ultra);
}

TEST_F(LoaderErrors, StringsAndDeviceNames) {
  ordered_json broken = b200;
  broken.erase("name");
  EXPECT_EQ(error_of(broken), "b200.json: /name: missing; expected a non-empty string");
  broken = b200;
  broken["architecture"] = 100;
  EXPECT_EQ(error_of(broken), "b200.json: /architecture: expected a non-empty string");
  broken = b200;
  broken["device_names"] = {"NVIDIA B200", 3};
  EXPECT_EQ(error_of(broken), "b200.json: /device_names/1: expected a non-empty string");
  broken = b200;
  broken["device_names"] = "NVIDIA B200";
  EXPECT_EQ(error_of(broken),
            "b200.json: /device_names: expected an array of device names as "
            "cudaDeviceProp::name reports them");
}

TEST_F(LoaderErrors, ShapeOfTheDocument) {
  EXPECT_EQ(error_of(ordered_json::array()), "b200.json: (root): expected a JSON object");
  b200.erase("per_sm");
  EXPECT_EQ(error_of(b200), "b200.json: /per_sm: missing; expected an object of per-SM figures");
}

class FolderErrors : public LoaderErrors {};

TEST_F(FolderErrors, NotAFolder) {
  const Result<std::vector<Spec>> specs = load_all_specs(temp.dir() / "absent");
  ASSERT_FALSE(specs.ok());
  EXPECT_EQ(specs.error().message,
            (temp.dir() / "absent").string() +
                ": not a folder; expected the folder of hardware models (models/*.json)");
}

TEST_F(FolderErrors, EmptyFolder) {
  const Result<std::vector<Spec>> specs = load_all_specs(temp.dir());
  ASSERT_FALSE(specs.ok());
  EXPECT_EQ(specs.error().message,
            temp.dir().string() + ": no hardware models (*.json) in this folder");
}

TEST_F(FolderErrors, ABrokenFileFailsTheFolderWithItsOwnMessage) {
  temp.write_json("b200.json", b200);
  b200["per_sm"]["mufu_ex2_per_clk"]["value"] = -1;
  temp.write_json("b300.json", b200);
  const Result<std::vector<Spec>> specs = load_all_specs(temp.dir());
  ASSERT_FALSE(specs.ok());
  EXPECT_EQ(specs.error().message, (temp.dir() / "b300.json").string() +
                                       ": /per_sm/mufu_ex2_per_clk: expected a positive number");
}

TEST_F(FolderErrors, ADeviceNameBelongsToOneModel) {
  temp.write_json("b200.json", b200);
  temp.write_json("b200-copy.json", b200);
  const Result<std::vector<Spec>> specs = load_all_specs(temp.dir());
  ASSERT_FALSE(specs.ok());
  EXPECT_EQ(specs.error().message,
            temp.dir().string() +
                ": device name 'NVIDIA B200' is in both b200-copy.json and b200.json; keep it "
                "in one model");
}

TEST_F(FolderErrors, OtherFilesAreIgnored) {
  temp.write_json("b200.json", b200);
  temp.write_text("README.md", "not a model");
  const Result<std::vector<Spec>> specs = load_all_specs(temp.dir());
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  EXPECT_EQ(specs->size(), 1u);
}

}  // namespace
}  // namespace fa4::hw
