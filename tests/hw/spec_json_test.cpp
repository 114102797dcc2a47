// The JSON writer emits the model-file schema: loading its output gives the same Spec back.
#include "hw/spec_json.hpp"

#include <gtest/gtest.h>

#include "hw/figures.hpp"
#include "hw/loader.hpp"
#include "model_files.hpp"

namespace fa4::hw {
namespace {

TEST(SpecJson, RoundTripsEveryShippedModel) {
  testing::TempModels temp;
  for (const Spec& spec : testing::shipped_specs()) {
    nlohmann::ordered_json json = spec;
    EXPECT_EQ(json["id"], spec.id);
    json.erase("id");  // the loader takes the id from the file name
    const Result<Spec> again = load_spec(temp.write_json(spec.id + ".json", json));
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(again->name, spec.name);
    EXPECT_EQ(again->architecture, spec.architecture);
    EXPECT_EQ(again->device_names, spec.device_names);
    EXPECT_EQ(again->sources, spec.sources);
    for (const Figure& figure : figures())
      EXPECT_EQ(figure.get(*again), figure.get(spec)) << spec.id << " " << figure.pointer;
  }
}

TEST(SpecJson, WholeNumbersPrintAsIntegers) {
  const nlohmann::ordered_json json = *find_spec(testing::shipped_specs(), "b200").value();
  EXPECT_EQ(json["per_sm"]["mma_flop_per_clk_bf16"]["value"].dump(), "8192");
  EXPECT_EQ(json["hbm_bytes_per_s"]["value"].dump(), "8000000000000");
}

}  // namespace
}  // namespace fa4::hw
