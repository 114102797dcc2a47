// Each subcommand's examples, one table: printed at the end of its --help and by `help
// SUBCOMMAND`, with the global options; tests/cli/examples_cli_test.cpp runs every example that
// needs neither a CUDA GPU nor measured results.
#pragma once

#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

namespace fa4::app {

enum class ExampleNeeds {
  nothing,       // runs anywhere, from the source tree (its data/ folder)
  cuda_gpu,      // measures: a CUDA GPU and a CUDA build
  measurements,  // reads measured runs (a database `bench` wrote)
};

struct Example {
  std::string_view subcommand;
  std::string_view command;  // after "fa4-analyze "
  ExampleNeeds needs;
};

std::span<const Example> examples();

// Appends to every subcommand's help its examples and the global options.
void add_help_footers(CLI::App& app);

}  // namespace fa4::app
