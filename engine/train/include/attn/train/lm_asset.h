// The language model as bytes: web/assets/lm-brown.bin. Weight matrices are stored as int8 with one
// float32 scale per row (a row's largest |value| maps to 127), vectors (LayerNorm gains and biases,
// biases) as float32; what is read back is what every consumer (page, CLI, tests, the PyTorch
// reference) runs.
//
// Layout (little-endian; every section starts at a multiple of 4):
//   8 bytes   magic "ATTNLM01"
//   7 × u32   vocab V, seq_len T, d_model d, layers L, heads h, positions (1 learned, 3 rope:
//             attn::train::Positions), MLP width (4d)
//   u32       byte length W of the vocabulary; W bytes: the V words, '\n'-separated, ASCII, the
//             last "<unk>"; 0–3 zero bytes of padding
//   u32       tensor count N (ForEachParameter's order for LmShapes(config): wte, wpe (learned
//             positions), per block ln1_gamma ln1_beta attention.wq wk wv wo bq bk bv bo ln2_gamma
//             ln2_beta fc_w fc_b proj_w proj_b, then lnf_gamma lnf_beta out_b)
//   N × tensor:
//     u32 rows, u32 cols, u32 encoding (0 float32, 1 int8 rows)
//     encoding 0: rows·cols × f32, row-major
//     encoding 1: rows × f32 scale s_r, then rows·cols × i8 q (value = s_r·q), row-major, 0–3 zero bytes
#pragma once

#include <string>
#include <string_view>

#include "attn/status.h"
#include "attn/train/lm_inference.h"

namespace attn::train {

// The asset's bytes for `model` (a valid config, LmShapes's shapes, V words without '\n').
// Matrices with more than one row are quantised; the rest are stored exactly.
Status WriteLmAsset(const LmModel& model, std::string* bytes);

// Parses an asset: checks the magic, the header against ValidateLmConfig, every tensor's shape
// against LmShapes's and every length against the bytes left, and that values are finite
// (kParseError naming the part and byte offset, e.g. "lm asset: block2.fc_w: expected (128, 512),
// got (128, 500) (at byte 40960)"). Nothing trusts the file.
Status ReadLmAsset(std::string_view bytes, LmModel* model);

// What storing does to `params`: each matrix with more than one row rounded to int8 with per-row
// scales and back (the asset's values, exactly), the others as they are.
ModelParameters QuantizeLm(const ModelParameters& params);

}  // namespace attn::train
