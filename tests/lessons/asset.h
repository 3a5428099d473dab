// The page's data assets (web/assets/), read by the tests through ATTN_ASSET_DIR (an absolute path
// that serves the native build and the node build alike).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace lessons::testing {

// The whole file, or "" when it is missing (the caller asserts on it).
inline std::string ReadAsset(const std::string& name) {
  std::ifstream file(std::string(ATTN_ASSET_DIR) + "/" + name, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace lessons::testing
