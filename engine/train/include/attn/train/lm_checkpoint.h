// Real checkpoints: GPT-2 (Hugging Face) and nanoGPT safetensors files read into an LmModel, and
// attnlab's own language models written as safetensors + config.json that PyTorch (and Hugging
// Face's GPT2LMHeadModel, for learned positions) loads. A checkpoint is untrusted input: every
// length, offset, shape, dtype and value is checked, errors name the tensor or field, nothing throws.
//
// [SECTION] The safetensors format
//   u64 little-endian N | N bytes of JSON | data
//   JSON: {"NAME": {"dtype": "F32", "shape": [r, c], "data_offsets": [begin, end]}, …,
//          "__metadata__": {"key": "value", …}}   (offsets relative to the data's start)
// Read: F32, F16 and BF16 (F16 and BF16 convert to float exactly: F16's subnormals, ±inf and NaN
// included, BF16 by a shift); other dtypes of the format (F64, I64, … BOOL) are parsed, and refused
// only where a parameter has one ("h.0.attn.c_attn.weight: dtype I64: expected F32, F16 or BF16").
//
// Memory (what a read allocates beyond the caller's bytes):
//   - the header is refused above kSafetensorsMaxHeaderBytes (16 MiB) before anything is parsed;
//     its parse then holds at most bounded_json.h's bound (128 MB + 2 × the header);
//   - the model's floats, 4 × LmParameterCount(config), checked against kLmMaxParameterBytes
//     (2 GiB) before any matrix is allocated; an F16/BF16 file thus costs twice its size in float;
//   - std::bad_alloc is caught and returned as kResourceExhausted.
//
// [SECTION] Namings (after an optional "transformer." prefix; L blocks, d = n_embd, V, T)
//   wte.weight (V, d)   wpe.weight (T, d)   ln_f.{weight,bias} (d)
//   h.N.ln_1.{weight,bias} (d)    h.N.attn.c_attn.{weight, bias (3d)}   q | k | v along "out"
//   h.N.attn.c_proj.{weight, bias (d)}   h.N.ln_2   h.N.mlp.c_fc.{weight, bias (4d)}
//   h.N.mlp.c_proj.{weight, bias (d)}
// Layouts, told apart by c_attn.weight's shape and required to agree for every block:
//   Hugging Face GPT-2 (Conv1D): weight (in, out) — c_attn (d, 3d), the engine's own x·W layout;
//   nanoGPT (nn.Linear): weight (out, in) — c_attn (3d, d), transposed on load.
// Biases: all present, or all absent (nanoGPT's bias=False: zeros, LayerNorm's β included); a file
// with some is refused, naming the first missing one. Ignored: the non-parameter buffers
// h.N.attn.bias and h.N.attn.masked_bias. lm_head.weight: equal to wte.weight (tied, as GPT-2 and
// nanoGPT save it) or absent; one that differs is refused (attnlab's output is tied to wte: an
// untied head would need its own (V, d) matrix). lm_head.bias (V): attnlab's own output bias (GPT-2
// has none: zeros). Any other name is an extra tensor and is refused.
//
// [SECTION] Settings (config.json, GPT-2's keys, or the options below; options win)
//   n_head                 required: a head count cannot be read off the shapes ("n_head: not in
//                          the config; pass heads …")
//   n_embd, n_layer, n_positions (or n_ctx), vocab_size
//                          cross-checked against the shapes when present
//   layer_norm_epsilon     default 1e-5
//   activation_function    "gelu_new" / "gelu_pytorch_tanh" (tanh form, the default), "gelu"
//                          (exact erf form); others refused
//   attnlab_positions      "rope" for attnlab's RoPE models (no wpe); "learned" the default
// The vocabulary: __metadata__'s "attnlab.vocabulary" (the words joined by '\n') when it has V of
// them, else placeholders "[0]", "[1]", … (GPT-2's BPE is gpt2_bpe.h's; the CLI uses it for such
// a file when V is 50,257).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attn/status.h"
#include "attn/train/lm_inference.h"

namespace attn::train {

constexpr uint64_t kSafetensorsMaxHeaderBytes = uint64_t{16} << 20;

// One tensor's entry in a safetensors header; its bytes are data[begin, end).
struct SafetensorsTensor {
  std::string name;
  std::string dtype;           // "F32", "F16", "BF16", "F64", "I64", … (a dtype the format names)
  std::vector<int64_t> shape;  // each ≥ 0; Π shape × dtype size == end − begin
  uint64_t begin = 0, end = 0;
};

// A parsed header over the caller's bytes (not copied: `data` points into them).
struct SafetensorsFile {
  std::vector<SafetensorsTensor> tensors;                   // in the header's order
  std::vector<std::pair<std::string, std::string>> metadata;  // __metadata__, string values only
  const uint8_t* data = nullptr;
  uint64_t data_size = 0;
};

// Checks the framing and every entry: the length against the file and kSafetensorsMaxHeaderBytes,
// the JSON, each dtype, shape and offset pair (in range, begin ≤ end, size matching, no two
// overlapping). kParseError "safetensors: h.0.ln_1.weight: data_offsets: [0, 12] hold 12 bytes,
// expected 3072 (shape [768] × F32's 4)".
Status ParseSafetensors(const uint8_t* bytes, size_t size, SafetensorsFile* out);

// A tensor of dtype F32/F16/BF16 as float, in the order stored (row-major), each value checked
// finite ("safetensors: wte.weight: element 17 is nan").   -> (count)
Status SafetensorsToFloats(const SafetensorsFile& file, const SafetensorsTensor& tensor, std::vector<float>* out);

// A shape as the messages print it: "[768, 2304]".
std::string SafetensorsShapeText(const std::vector<int64_t>& shape);

// IEEE binary16 and bfloat16 bit patterns to float, exactly.
float HalfToFloat(uint16_t bits);
float BFloat16ToFloat(uint16_t bits);

// What ReadLmCheckpoint needs beyond the file: a config.json's text and/or explicit settings.
struct LmCheckpointOptions {
  std::string config_json;   // Hugging Face GPT-2's config.json (may be empty)
  int heads = 0;             // > 0: n_head, overriding the config
  double layer_norm_eps = 0; // > 0: overrides layer_norm_epsilon
  std::string activation;    // non-empty: overrides activation_function ("gelu_new", "gelu", …)
};

// What was found, for the page and the CLI to show.
struct LmCheckpointInfo {
  std::string layout;      // "gpt2 (Conv1D)" or "nanogpt (Linear)"
  std::string dtype;       // the parameters' dtype ("F32", "F16", "BF16"; "mixed" when several)
  bool biases = true;      // false: a bias-free nanoGPT, zeros
  int64_t parameters = 0;  // LmParameterCount(config)
  int64_t bytes_in_memory = 0;  // 4 × parameters
  // Where the words came from: "attnlab" (__metadata__'s attnlab.vocabulary) or "placeholders"
  // ("[0]", "[1]", …: a GPT-2 / nanoGPT file, whose ids the CLI reads with gpt2_bpe.h when V is 50,257).
  std::string vocabulary;
};

// Reads a GPT-2 / nanoGPT / attnlab safetensors checkpoint into `model` (config, parameters,
// vocabulary). `model` is untouched on error.
Status ReadLmCheckpoint(const std::string& bytes, const LmCheckpointOptions& options, LmModel* model,
                        LmCheckpointInfo* info = nullptr);

// [SECTION] Writing
// One F32 tensor for WriteSafetensors: `values` are written row by row (row-major), so a (1, n)
// matrix may be stored with shape [n].
struct SafetensorsEntry {
  std::string name;
  std::vector<int64_t> shape;  // Π shape == values.size()
  Matrix values;
};

// The safetensors bytes of `tensors`, F32 and in the order given (data 8-aligned, as the safetensors
// crate writes it), with `metadata` as __metadata__'s string pairs. Shared by every attnlab export
// (WriteLmCheckpoint, model_checkpoint.h's WriteModelCheckpoint). kShapeMismatch "safetensors:
// wte.weight: shape [16, 32] holds 512 values, expected 480".
Status WriteSafetensors(const std::vector<std::pair<std::string, std::string>>& metadata,
                        const std::vector<SafetensorsEntry>& tensors, std::string* out);

// The name of the config.json saved beside FILE.safetensors: FILE.config.json (".safetensors"
// replaced; appended to a name without that ending), so one directory holds several models. The CLI's
// --save and the page's "Export weights" both name the pair by it.
std::string ConfigNameBeside(const std::string& safetensors_name);

// attnlab's model as Hugging Face GPT-2 names (no prefix, Conv1D (in, out) layout: the engine's own
// x·W, so no transposes), F32, plus lm_head.bias (our output bias) and __metadata__
// {"format": "pt", "attnlab.vocabulary": words joined by '\n'} (no vocabulary entry when
// model.vocabulary is empty: a GPT-2 vocabulary, read with GPT-2's BPE); `config_json` gets GPT-2's keys
// (n_embd, n_head, n_layer, n_positions, n_ctx, vocab_size, layer_norm_epsilon,
// activation_function, model_type "gpt2") and attnlab_positions ("learned" or "rope": GPT-2 has no
// RoPE; a RoPE model has no wpe.weight). Refuses a model whose shapes are not LmShapes's or whose
// words hold '\n'.
Status WriteLmCheckpoint(const LmModel& model, std::string* safetensors, std::string* config_json);

}  // namespace attn::train
