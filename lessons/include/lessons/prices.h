// The monthly closing prices of web/assets/prices.csv ("symbol,date,price", ISO dates), parsed in
// plain C++ so that the native tests check the same code the page runs.
#pragma once

#include <string>
#include <vector>

#include "lessons/common.h"

namespace lessons {

struct PriceSeries {
  std::string symbol;
  std::vector<std::string> dates;  // "2000-01-01", increasing
  attn::Matrix prices;             // (n, 1), finite and > 0
};

struct PriceTable {
  std::vector<PriceSeries> series;  // in order of first appearance in the file
};

// What the page has of the asset: the table once loaded, or why not.
struct PricesInputs {
  PriceTable table;
  std::string error;  // set when the asset could not be fetched or parsed
  int version = 0;    // bumps when the table arrives; 0 = not yet
};

// Parses the CSV text; kParseError naming the line on anything malformed (then *out is untouched).
attn::Status ParsePrices(const std::string& text, PriceTable* out);

}  // namespace lessons
