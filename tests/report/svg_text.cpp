#include "svg_text.hpp"

#include <expat.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace fa4::report::testing {
namespace {

struct Collector {
  int depth_in_text = 0;
  std::vector<std::string> texts;
};

void on_start(void* data, const XML_Char* name, const XML_Char**) {
  auto* c = static_cast<Collector*>(data);
  if (std::strcmp(name, "text") == 0 && c->depth_in_text++ == 0)
    c->texts.emplace_back();
  else if (c->depth_in_text)
    ++c->depth_in_text;
}

void on_end(void* data, const XML_Char*) {
  auto* c = static_cast<Collector*>(data);
  if (c->depth_in_text) --c->depth_in_text;
}

void on_characters(void* data, const XML_Char* s, int length) {
  auto* c = static_cast<Collector*>(data);
  if (c->depth_in_text) c->texts.back().append(s, std::size_t(length));
}

}  // namespace

Result<std::vector<std::string>> svg_texts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot be read"};
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  Collector collector;
  XML_Parser parser = XML_ParserCreate(nullptr);
  XML_SetUserData(parser, &collector);
  XML_SetElementHandler(parser, on_start, on_end);
  XML_SetCharacterDataHandler(parser, on_characters);
  const bool ok =
      XML_Parse(parser, text.data(), int(text.size()), /*isFinal=*/1) != XML_STATUS_ERROR;
  std::string error;
  if (!ok)
    error = path + ":" + std::to_string(XML_GetCurrentLineNumber(parser)) + ": " +
            XML_ErrorString(XML_GetErrorCode(parser));
  XML_ParserFree(parser);
  if (!ok) return Error{error};
  return collector.texts;
}

}  // namespace fa4::report::testing
