// prices.csv: the real asset parses into its six series; malformed text is refused with the line.
#include <gtest/gtest.h>

#include "lessons/asset.h"
#include "lessons/prices.h"

namespace lessons {
namespace {

TEST(Prices, TheAssetParses) {
  const std::string csv = testing::ReadAsset("prices.csv");
  ASSERT_FALSE(csv.empty()) << "asset missing";
  PriceTable table;
  const attn::Status status = ParsePrices(csv, &table);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(table.series.size(), 6u);
  size_t rows = 0;
  for (const PriceSeries& s : table.series) rows += s.dates.size();
  EXPECT_EQ(rows, 683u);
  const PriceSeries& msft = table.series[0];
  EXPECT_EQ(msft.symbol, "MSFT");
  EXPECT_EQ(msft.dates.front(), "2000-01-01");
  EXPECT_FLOAT_EQ(msft.prices(0, 0), 39.81f);
  EXPECT_EQ(msft.prices.rows(), static_cast<Eigen::Index>(msft.dates.size()));
}

TEST(Prices, CrLfAndBlankLinesAreFine) {
  PriceTable table;
  ASSERT_TRUE(ParsePrices("symbol,date,price\r\nA,2000-01-01,1.5\r\n\r\nA,2000-02-01,2\r\nB,2000-01-01,3\n", &table).ok());
  ASSERT_EQ(table.series.size(), 2u);
  EXPECT_EQ(table.series[0].prices.rows(), 2);
  EXPECT_FLOAT_EQ(table.series[0].prices(1, 0), 2.0f);
}

TEST(Prices, BadInputIsRefusedWithTheLine) {
  PriceTable table;
  table.series.push_back(PriceSeries{"keep", {}, {}});
  const char* bad[] = {
      "",
      "sym,date,price\nA,2000-01-01,1\n",
      "symbol,date,price\n",
      "symbol,date,price\nA,2000-01-01\n",
      "symbol,date,price\nA,2000-01-01,1,2\n",
      "symbol,date,price\nA,2000/01/01,1\n",
      "symbol,date,price\nA,2000-01-01,abc\n",
      "symbol,date,price\nA,2000-01-01,nan\n",
      "symbol,date,price\nA,2000-01-01,-3\n",
      "symbol,date,price\nA,2000-02-01,1\nA,2000-01-01,2\n",
  };
  for (const char* text : bad) {
    const attn::Status status = ParsePrices(text, &table);
    EXPECT_EQ(status.code(), attn::StatusCode::kParseError) << text;
    EXPECT_EQ(table.series.size(), 1u) << "untouched on error";
  }
  EXPECT_NE(ParsePrices("symbol,date,price\nA,2000-01-01,1\nA,2000-01-01,x\n", &table).message().find("line 3"),
            std::string::npos);
}

}  // namespace
}  // namespace lessons
