// attn::Version() is the CMake project version this build was configured with (ATTN_PROJECT_VERSION,
// set from project(attnlab VERSION ...) in tests/CMakeLists.txt): nothing writes the number twice.
// tests/cli_version_test.cmake checks package.json and `attnlab --version` against the same.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "attn/version.h"

TEST(Version, IsTheCMakeProjectVersion) {
  ASSERT_NE(attn::Version(), nullptr);
  EXPECT_STREQ(attn::Version(), ATTN_PROJECT_VERSION);
}

TEST(Version, IsMajorMinorPatch) {
  EXPECT_TRUE(std::regex_match(std::string(attn::Version()), std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")))
      << attn::Version();
}
