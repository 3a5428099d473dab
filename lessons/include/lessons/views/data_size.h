// View 8: a CNN against self-attention as the training set grows — attn::train's DataSizeRunner
// run in time slices, and its points as curves for a log-N plot.
#pragma once

#include <string>

#include "attn/train/data_size.h"
#include "lessons/common.h"
#include "lessons/view_state.h"

namespace lessons {

// The runner's settings for the state: the plusminus task, N = 16, 64, … up to 2^largest,
// `seeds` seeds and `steps` updates per run, each scored on 256 held-out sequences (models and
// optimizer at the runner's defaults).
attn::train::DataSizeConfig DataSizeConfigFor(const DataSizeState& state);

// The points as curves over log2 N; entries of sizes no seed has finished yet are NaN.
struct DataSizeCurves {
  Matrix log2_n;                                 // (sizes, 1)
  Matrix transformer_mean, transformer_min, transformer_max;  // (sizes, 1) held-out accuracy
  Matrix cnn_mean, cnn_min, cnn_max;                          // (sizes, 1)
};
DataSizeCurves CurvesOfPoints(const attn::train::DataSizeRunner& runner);

// What the finished curves show, in one sentence from their numbers ("With 16 sequences the CNN is
// ahead, 0.50 to 0.21; from 256 on the transformer is, 1.00 to 0.69 at 4096."); "" until every
// point has a seed.
std::string DescribeDataSize(const attn::train::DataSizeRunner& runner);

}  // namespace lessons
