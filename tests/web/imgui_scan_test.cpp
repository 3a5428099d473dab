// web/app/imgui_scan.cpp, the sscanf Dear ImGui is built with in the page: on every format ImGui
// 1.90.1 passes (a number typed into a slider, the colour and .ini parsers) it assigns what the C
// library's sscanf assigns and returns the same count.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

extern "C" int attnlab_imgui_sscanf(const char* input, const char* format, ...);

namespace {

TEST(ImguiScan, AgreesWithTheCLibraryOnImguisFormats) {
  for (const char* in : {"42", " -17", "3.5", "abc", "", "+8 rest", "0x1F", "2147483647"}) {
    int a = -1, b = -1;
    EXPECT_EQ(attnlab_imgui_sscanf(in, "%d", &a), std::sscanf(in, "%d", &b)) << in;
    EXPECT_EQ(a, b) << in;
    unsigned ua = 7, ub = 7;
    EXPECT_EQ(attnlab_imgui_sscanf(in, "%u", &ua), std::sscanf(in, "%u", &ub)) << in;
    EXPECT_EQ(ua, ub) << in;
    long long la = -1, lb = -1;
    EXPECT_EQ(attnlab_imgui_sscanf(in, "%lld", &la), std::sscanf(in, "%lld", &lb)) << in;
    EXPECT_EQ(la, lb) << in;
    float fa = -1, fb = -1;
    EXPECT_EQ(attnlab_imgui_sscanf(in, "%f", &fa), std::sscanf(in, "%f", &fb)) << in;
    EXPECT_EQ(fa, fb) << in;
    double da = -1, db = -1;
    EXPECT_EQ(attnlab_imgui_sscanf(in, "%lf", &da), std::sscanf(in, "%lf", &db)) << in;
    EXPECT_EQ(da, db) << in;
  }
  // The .ini lines, the table settings and the colour's hex.
  int x = 0, y = 0, x2 = 0, y2 = 0;
  EXPECT_EQ(attnlab_imgui_sscanf("Pos=60,-12", "Pos=%i,%i", &x, &y), 2);
  EXPECT_EQ(std::sscanf("Pos=60,-12", "Pos=%i,%i", &x2, &y2), 2);
  EXPECT_EQ(x, x2);
  EXPECT_EQ(y, y2);
  EXPECT_EQ(attnlab_imgui_sscanf("Size=60,12", "Pos=%i,%i", &x, &y), 0);
  unsigned id = 0, id2 = 0;
  int columns = 0, columns2 = 0;
  EXPECT_EQ(attnlab_imgui_sscanf("0x00A1B2C3,4", "0x%08X,%d", &id, &columns), 2);
  EXPECT_EQ(std::sscanf("0x00A1B2C3,4", "0x%08X,%d", &id2, &columns2), 2);
  EXPECT_EQ(id, id2);
  EXPECT_EQ(columns, columns2);
  float scale = 0;
  EXPECT_EQ(attnlab_imgui_sscanf("RefScale=13.5", "RefScale=%f", &scale), 1);
  EXPECT_EQ(scale, 13.5f);
  unsigned rgba[4] = {}, rgba2[4] = {};
  EXPECT_EQ(attnlab_imgui_sscanf("FF8000C0", "%02X%02X%02X%02X", &rgba[0], &rgba[1], &rgba[2], &rgba[3]), 4);
  EXPECT_EQ(std::sscanf("FF8000C0", "%02X%02X%02X%02X", &rgba2[0], &rgba2[1], &rgba2[2], &rgba2[3]), 4);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(rgba[k], rgba2[k]) << k;
  EXPECT_EQ(attnlab_imgui_sscanf("FF80", "%02X%02X%02X", &rgba[0], &rgba[1], &rgba[2]), 2) << "stops where the text does";
}

}  // namespace
