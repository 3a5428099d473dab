// The numbers a reader copies from a figure read back exactly, labels quoted where a spreadsheet needs it.
#include "lessons/csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace lessons {
namespace {

TEST(MatrixToCsv, LabelsTheRowsAndColumnsAndQuotesWhatNeedsIt) {
  Matrix m(2, 3);
  m << 0.1f, 1.0f / 3.0f, -INFINITY,
       2.0f, 0.0f, 1e-8f;
  const std::string csv = MatrixToCsv(m, {"it", "said \"hi\", then"}, {"a", "b"});
  EXPECT_EQ(csv,
            ",a,b,3\n"
            "it,0.1,0.33333334,-inf\n"
            "\"said \"\"hi\"\", then\",2,0,1e-08\n");
  // The shortest text that reads back as the same float.
  EXPECT_EQ(std::strtof("0.33333334", nullptr), 1.0f / 3.0f);
  EXPECT_NE(std::strtof("0.3333333", nullptr), 1.0f / 3.0f);
}

TEST(ColumnsToCsv, GapsAreEmptyCellsAndShortColumnsEndEarly) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ColumnsToCsv({"n", "µs"}, {{16, 32, 64}, {1.5, nan}}), "n,µs\n16,1.5\n32,\n64,\n");
}

}  // namespace
}  // namespace lessons
