// attnlab_lm_heads: measures the page's language model's heads on held-out Brown text and writes
// web/assets/lm-brown-heads.txt (lessons/lm_heads.h: the format and what each number is).
// Usage (scripts/build-lm-heads.mjs runs it with the shipped settings):
//   attnlab_lm_heads --model web/assets/lm-brown.bin --corpus .cache/brown/brown-upos.bin
//                    --out web/assets/lm-brown-heads.txt [--windows 64] [--induction-words 32] [--seed 1]
//
// What it prints: the held-out text measured, the time, one sentence per head (as the table read
// back gives them), and the induction demo on the same model (ComputeLmInduction).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "attn/train/lm_asset.h"
#include "attn/train/corpus.h"
#include "lessons/lm_heads.h"

namespace {

using lessons::Status;

int Fail(const Status& s) {
  std::fprintf(stderr, "attnlab_lm_heads: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string model_path = "web/assets/lm-brown.bin", corpus_path = ".cache/brown/brown-upos.bin",
              out = "web/assets/lm-brown-heads.txt";
  lessons::LmHeadsConfig config;
  int induction_words = 32;
  uint32_t seed = 1;
  bool ok = argc % 2 == 1;
  for (int i = 1; ok && i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model") model_path = value;
    else if (key == "--corpus") corpus_path = value;
    else if (key == "--out") out = value;
    else if (key == "--windows") config.windows = std::stoi(value);
    else if (key == "--induction-words") induction_words = std::stoi(value);
    else if (key == "--seed") seed = static_cast<uint32_t>(std::stoul(value));
    else ok = false;
  }
  if (!ok) {
    std::fprintf(stderr, "usage: attnlab_lm_heads [--model F] [--corpus F] [--out F] [--windows N] "
                         "[--induction-words N] [--seed N]\n");
    return 2;
  }
  const std::vector<uint8_t> model_bytes = attn::train::ReadFile(model_path);
  attn::train::LmModel model;
  if (Status s = attn::train::ReadLmAsset(
          std::string_view(reinterpret_cast<const char*>(model_bytes.data()), model_bytes.size()), &model);
      !s.ok())
    return Fail(s);
  attn::train::Corpus corpus;
  if (Status s = attn::train::ReadCorpus(attn::train::ReadFile(corpus_path), &corpus); !s.ok()) return Fail(s);

  const auto started = std::chrono::steady_clock::now();
  lessons::LmHeadTable table;
  if (Status s = lessons::MeasureLmHeads(model, corpus, config, &table); !s.ok()) return Fail(s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string text;
  if (Status s = lessons::WriteLmHeads(table, &text); !s.ok()) return Fail(s);
  lessons::LmHeadTable back;
  if (Status s = lessons::ReadLmHeads(text, &back); !s.ok()) return Fail(s);
  std::ofstream(out, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
  std::printf("held-out: the split's first %d windows of %d words, %lld predictions; the model's perplexity %.2f; "
              "measured in %.0f s (%d forward passes)\n",
              table.windows, model.config.seq_len, static_cast<long long>(table.tokens), std::exp(back.nll), seconds,
              table.windows * (1 + 2 * table.layers * table.heads));
  for (const lessons::LmHeadStats& h : back.stats) std::printf("%s\n", h.text.c_str());
  lessons::LmInduction induction;
  if (Status s = lessons::ComputeLmInduction(model, induction_words, seed, &induction); !s.ok()) return Fail(s);
  std::printf("induction (seed %u): %s\n", seed, induction.text.c_str());
  std::printf("wrote %s: %zu bytes\n", out.c_str(), text.size());
  return 0;
}
