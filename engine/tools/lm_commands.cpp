#include "lm_commands.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/train/gpt2_bpe.h"
#include "attn/train/lm_asset.h"
#include "attn/train/lm_checkpoint.h"
#include "attn/train/lm_inference.h"
#include "attn/train/lm_trainer.h"
#include "attn/train/ngram_baselines.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "json_text.h"
#include "attn/train/corpus.h"
#include "attn/text.h"

namespace attnlab_cli {
namespace {

namespace train = attn::train;

// Relative to the working directory: the repository's root, where the CLI is run from.
constexpr const char* kDefaultModel = "web/assets/lm-brown.bin";
constexpr const char* kDefaultCorpus = ".cache/brown/brown-upos.bin";
constexpr IntFlag kTokens{"--tokens", "N", 1, 255, "words to generate (with the prompt, at most the model's context, 64 words)"};
constexpr FloatFlag kTemperature{"--temperature", "T", 0.0f, 10.0f, "sampling temperature, softmax(logits / T); 0: greedy (the most probable word)"};
constexpr IntFlag kSampleSeed{"--seed", "S", 0, 2147483647, "seeds the sampler"};
constexpr int kDefaultTokens = 20, kDefaultSeed = 1;
constexpr float kDefaultTemperature = 0.8f;
constexpr int kEvalBatch = 16;

// The model of `path`; false with the reason printed as a usage error of `command`.
bool LoadModel(const std::string& command, const std::string& path, train::LmModel* model, int* exit_code) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *exit_code = UsageError(command, "parse_error: --model: cannot read '" + Excerpt(path.c_str()) + "'");
    return false;
  }
  std::stringstream bytes;
  bytes << file.rdbuf();
  const attn::Status status = train::ReadLmAsset(bytes.str(), model);
  if (!status.ok()) {
    *exit_code = UsageError(command, "--model '" + Excerpt(path.c_str()) + "': " + status.ToString());
    return false;
  }
  return true;
}

// The whole of a file, refused above `limit` bytes before reading (false with the reason in *error).
bool ReadBounded(const std::string& path, uint64_t limit, std::string* out, std::string* error) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) return *error = "cannot read '" + Excerpt(path.c_str()) + "'", false;
  const std::streamoff size = file.tellg();
  if (size < 0) return *error = "cannot read '" + Excerpt(path.c_str()) + "'", false;
  if (static_cast<uint64_t>(size) > limit)
    return *error = "'" + Excerpt(path.c_str()) + "' is " + std::to_string(size) + " bytes, more than the " +
                    std::to_string(limit) + " allowed",
           false;
  file.seekg(0);
  out->resize(static_cast<size_t>(size));
  file.read(out->data(), size);
  return static_cast<bool>(file) || size == 0 ? true : (*error = "cannot read '" + Excerpt(path.c_str()) + "'", false);
}

constexpr IntFlag kIds{"--ids", "ID,ID,...", 0, 65535, "token ids"};
constexpr IntFlag kTop{"--top", "K", 1, 100, "next tokens shown at each position"};
constexpr IntFlag kLmTokens{"--tokens", "N", 0, 2047, "tokens to generate greedily after the ids (0: none)"};
constexpr IntFlag kHeads{"--heads", "H", 1, 64, "heads per block when the config has no n_head"};
// A checkpoint: its parameters (≤ kLmMaxParameterBytes in float, so ≤ that in F32 on disk) and header.
constexpr uint64_t kMaxModelFileBytes = static_cast<uint64_t>(attn::train::kLmMaxParameterBytes) + (uint64_t{32} << 20);

}  // namespace

int Lm(int argc, char** argv) {
  Flags flags(argc, argv);
  std::string model_path, config_path, prompt;
  std::vector<int> ids;
  int top = 5, tokens = 0, heads = 0;
  std::string save_path;
  const bool ok = flags.Text("--model", &model_path) && flags.Text("--config", &config_path) &&
                  flags.IntList(kIds, &ids) && flags.Text("--prompt", &prompt) && flags.Int(kTop, &top) &&
                  flags.Int(kLmTokens, &tokens) && flags.Int(kHeads, &heads) && flags.Text("--save", &save_path);
  if (!ok) return UsageError("lm", flags.error());
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return UsageError("lm", flags.error());
  if (model_path.empty()) return UsageError("lm", "invalid_argument: --model: required (a .safetensors file or an attnlab asset)");
  if (!ids.empty() && !prompt.empty())
    return UsageError("lm", "invalid_argument: --prompt and --ids: expected one of them, got both");
  if (ids.empty() && prompt.empty() && save_path.empty())
    return UsageError("lm", "invalid_argument: --prompt or --ids: required (text, or token ids separated by commas) unless --save is given");
  std::string bytes, error;
  if (!ReadBounded(model_path, kMaxModelFileBytes, &bytes, &error)) return UsageError("lm", "parse_error: --model: " + error);
  train::LmModel model;
  attn::Status status;
  train::LmCheckpointInfo info;
  if (bytes.compare(0, 8, "ATTNLM01") == 0) {
    status = train::ReadLmAsset(bytes, &model);
  } else {
    train::LmCheckpointOptions options;
    options.heads = heads;
    if (!config_path.empty() && !ReadBounded(config_path, uint64_t{16} << 20, &options.config_json, &error))
      return UsageError("lm", "parse_error: --config: " + error);
    status = train::ReadLmCheckpoint(bytes, options, &model, &info);
  }
  bytes.clear();
  bytes.shrink_to_fit();
  if (!status.ok()) return UsageError("lm", "--model '" + Excerpt(model_path.c_str()) + "': " + status.ToString());
  if (!save_path.empty()) {  // the model as GPT-2 safetensors + FILE.config.json (docs/pytorch.md)
    std::string safetensors, config_json;
    // "[id]" placeholders are no words: a checkpoint without them is saved without them.
    std::vector<std::string> words;
    if (info.vocabulary == "placeholders") std::swap(words, model.vocabulary);
    status = train::WriteLmCheckpoint(model, &safetensors, &config_json);
    if (info.vocabulary == "placeholders") std::swap(words, model.vocabulary);
    if (!status.ok()) return UsageError("lm", "--save: " + status.ToString());
    const std::string config_out = train::ConfigNameBeside(save_path);
    std::FILE* files[2] = {nullptr, nullptr};
    const bool saved = OpenForWriting(save_path, &files[0], &error) && WriteAndClose(files[0], save_path, safetensors, &error) &&
                       OpenForWriting(config_out, &files[1], &error) && WriteAndClose(files[1], config_out, config_json, &error);
    if (!saved) return UsageError("lm", "invalid_argument: --save: " + error);
    if (ids.empty() && prompt.empty()) {
      std::printf(json ? "{\"saved\":{\"safetensors\":%s,\"config\":%s}}\n" : "saved %s and %s\n",
                  (json ? JsonString(save_path) : save_path).c_str(), (json ? JsonString(config_out) : config_out).c_str());
      return kExitOk;
    }
  }
  const train::LmConfig& c = model.config;
  // GPT-2's vocabulary: a checkpoint of 50,257 ids without attnlab's words. Its ids are read and
  // written with GPT-2's BPE (gpt2_bpe.h, the data embedded in this binary).
  const bool gpt2 = info.vocabulary == "placeholders" && c.vocab == train::kGpt2Vocab;
  train::Gpt2Bpe bpe;
  if (gpt2 && !(status = train::LoadGpt2Bpe(&bpe)).ok()) {
    std::fprintf(stderr, "attnlab lm: %s\n", status.ToString().c_str());
    return kExitFailed;
  }
  if (!prompt.empty()) {
    if (gpt2) {
      status = bpe.Encode(prompt, &ids);
      if (!status.ok()) return UsageError("lm", "--prompt: " + status.ToString());
    } else if (info.vocabulary == "placeholders") {
      return UsageError("lm", "invalid_argument: --prompt: the model's " + std::to_string(c.vocab) +
                                  " ids have no words (GPT-2's BPE needs 50257): pass --ids");
    } else {
      // attnlab's word-level models: the words as `attnlab generate` reads them.
      const train::LmWordIndex index(model.vocabulary);
      for (const std::string& word : attn::Tokenize(prompt)) ids.push_back(index.Id(attn::NormalizeToken(word)));
    }
    if (ids.empty()) return UsageError("lm", "invalid_argument: --prompt: expected at least one token");
  }
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= c.vocab)
      return UsageError("lm", "out_of_range: --ids[" + std::to_string(i) + "]: expected 0–" + std::to_string(c.vocab - 1) +
                                  " (the model's vocabulary), got " + std::to_string(ids[i]));
  if (static_cast<int>(ids.size()) + tokens > c.seq_len)
    return UsageError("lm", std::string("out_of_range: ") + (prompt.empty() ? "--ids" : "--prompt") + " and --tokens: expected at most " + std::to_string(c.seq_len) +
                                " tokens together (the context), got " + std::to_string(ids.size()) + " + " + std::to_string(tokens));
  train::LmCache cache;
  train::LmTrace trace;
  status = train::LmAdvance(model, ids, train::LmAblation(), false, &cache, &trace);
  // Greedy continuation through the cache (every id may be chosen: a checkpoint's last id is a token).
  std::vector<int> generated;
  train::LmTrace step = trace;
  for (int k = 0; status.ok() && k < tokens; ++k) {
    Eigen::Index best = 0;
    step.logits.bottomRows(1).row(0).maxCoeff(&best);
    generated.push_back(static_cast<int>(best));
    status = train::LmAdvance(model, {static_cast<int>(best)}, train::LmAblation(), false, &cache, &step);
  }
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab lm: %s\n", status.ToString().c_str());
    return kExitFailed;
  }
  const auto top_of = [&](Eigen::Index row) {
    const attn::Matrix p = train::LmSoftmax(trace.logits.row(row));
    std::vector<int> order(static_cast<size_t>(c.vocab));
    for (int v = 0; v < c.vocab; ++v) order[static_cast<size_t>(v)] = v;
    std::partial_sort(order.begin(), order.begin() + std::min(top, c.vocab), order.end(),
                      [&](int a, int b) { return p(0, a) > p(0, b) || (p(0, a) == p(0, b) && a < b); });
    order.resize(static_cast<size_t>(std::min(top, c.vocab)));
    std::vector<std::pair<int, float>> out;
    for (const int v : order) out.emplace_back(v, p(0, v));
    return out;
  };
  // A token as JSON holds it (GPT-2's: its bytes, a cut character's byte becoming U+FFFD in the JSON
  // string, as js-tiktoken's decode gives it) and as the text output shows it (GPT-2's display form:
  // "␣the", "\n", "\xE2").
  const auto token = [&](int id) {
    return gpt2 ? std::string(bpe.TokenBytes(id)) : model.vocabulary[static_cast<size_t>(id)];
  };
  const auto shown = [&](int id) { return gpt2 ? bpe.Display(id) : model.vocabulary[static_cast<size_t>(id)]; };
  if (!json) {
    std::printf("model: %d layers, %d heads, d_model %d, vocabulary %d, context %d, %s GELU, LayerNorm eps %g",
                c.layers, c.heads, c.d_model, c.vocab, c.seq_len,
                c.activation == train::LmActivation::kGeluErf ? "erf" : "tanh", c.layer_norm_eps);
    if (!info.layout.empty())
      std::printf("; %s, %s, %lld parameters (%lld bytes in memory)", info.layout.c_str(), info.dtype.c_str(),
                  static_cast<long long>(info.parameters), static_cast<long long>(info.bytes_in_memory));
    if (gpt2) std::printf("; GPT-2's BPE (a space shown as ␣)");
    std::printf("\n");
    for (size_t i = 0; i < ids.size(); ++i) {
      // Padded to 14 columns of characters, not bytes ("␣" is three).
      const std::string word = shown(ids[i]);
      const auto columns = std::count_if(word.begin(), word.end(), [](char ch) { return (ch & 0xC0) != 0x80; });
      std::printf("%4zu %s%*s ->", i, word.c_str(), static_cast<int>(std::max<std::ptrdiff_t>(0, 14 - columns)), "");
      for (const auto& [id, p] : top_of(static_cast<Eigen::Index>(i))) std::printf("  %s %.4f", shown(id).c_str(), p);
      std::printf("\n");
    }
    if (!generated.empty()) {
      std::printf("greedy:");
      for (const int id : generated) std::printf(" %s", shown(id).c_str());
      std::printf("\n");
    }
    return kExitOk;
  }
  std::string line = "{\"ids\":[";
  for (size_t i = 0; i < ids.size(); ++i) line += (i ? "," : "") + std::to_string(ids[i]);
  line += "],\"top\":[";
  for (size_t i = 0; i < ids.size(); ++i) {
    line += i ? ",[" : "[";
    bool first = true;
    for (const auto& [id, p] : top_of(static_cast<Eigen::Index>(i))) {
      line += std::string(first ? "" : ",") + "{\"id\":" + std::to_string(id) + ",\"token\":" + JsonString(token(id)) +
              ",\"p\":" + JsonNumber(p) + "}";
      first = false;
    }
    line += "]";
  }
  line += "],\"generated\":[";
  for (size_t i = 0; i < generated.size(); ++i) line += (i ? "," : "") + std::to_string(generated[i]);
  line += "]}\n";
  std::fputs(line.c_str(), stdout);
  return kExitOk;
}

std::string LmHelp() {
  return "usage: attnlab lm --model FILE [--config FILE] [--heads H] (--prompt TEXT | --ids ID,ID,...)\n"
         "                  [--top K] [--tokens N] [--json]\n"
         "       attnlab lm --model FILE [--config FILE] [--heads H] --save FILE.safetensors [--prompt ... | --ids ...]\n"
         "\n"
         "Runs a language model on a text or token ids: a GPT-2 or nanoGPT checkpoint (.safetensors,\n"
         "F32/F16/BF16; settings from a Hugging Face config.json) or an attnlab asset. Prints the top-K next\n"
         "tokens at every position and, with --tokens, a greedy continuation through the KV cache.\n"
         "A checkpoint of 50257 ids without attnlab's words has GPT-2's vocabulary: --prompt goes through\n"
         "GPT-2's byte-level BPE (the ids js-tiktoken gives; built into this binary), and tokens are shown\n"
         "as the reader reads them, a space as ␣ (\"␣the\"), a newline as \\n, a byte of a cut character as\n"
         "\\xE2 (in --json: the token's text, a cut character's byte as U+FFFD). attnlab's models take\n"
         "--prompt as words, as attnlab generate does; other checkpoints take --ids only (tokens [id]).\n"
         "\n"
         "flags:\n" +
         HelpFlag("--model FILE", "required: .safetensors (GPT-2 / nanoGPT / attnlab) or an ATTNLM01 asset") +
         HelpFlag("--config FILE", "config.json beside a checkpoint (n_head, layer_norm_epsilon, activation_function)") +
         IntFlagHelp(kHeads, "the config's n_head") +
         HelpFlag("--prompt TEXT", "the text (GPT-2's BPE, or attnlab's words), at most 1 MiB; or:") +
         HelpFlag("--ids ID,ID,...", "token ids, each 0–65535") +
         IntFlagHelp(kTop, "5") + IntFlagHelp(kLmTokens, "0") +
         HelpFlag("--save FILE", "the model (an asset or a checkpoint) as FILE, safetensors in GPT-2's names, and "
                                 "FILE.config.json beside it (docs/pytorch.md); --ids optional then") +
         HelpFlag("--json", "one line: {\"ids\": [...], \"top\": [[{\"id\", \"token\", \"p\"} × K] per position], "
                            "\"generated\": [ids]}") +
         HelpFlag("--help, -h", "this text") + HelpExitCodes("ran", "the model failed (a value not finite)") +
         HelpExample("attnlab lm --model model.safetensors --config config.json --prompt \"The jury said\" --top 5");
}

int Generate(int argc, char** argv) {
  Flags flags(argc, argv);
  std::string prompt, model_path = kDefaultModel;
  int tokens = kDefaultTokens, seed = kDefaultSeed;
  float temperature = kDefaultTemperature;
  const bool ok = flags.Text("--prompt", &prompt) && flags.Int(kTokens, &tokens) &&
                  flags.Float(kTemperature, &temperature) && flags.Int(kSampleSeed, &seed) &&
                  flags.Text("--model", &model_path);
  if (!ok) return UsageError("generate", flags.error());
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return UsageError("generate", flags.error());
  std::vector<std::string> words;
  for (const std::string& token : attn::Tokenize(prompt)) words.push_back(attn::NormalizeToken(token));
  if (words.empty()) return UsageError("generate", "invalid_argument: --prompt: expected at least one word");
  train::LmModel model;
  int exit_code = kExitOk;
  if (!LoadModel("generate", model_path, &model, &exit_code)) return exit_code;
  const int room = model.config.seq_len - static_cast<int>(words.size());
  if (room < 1 || tokens > room)
    return UsageError("generate", "out_of_range: --prompt and --tokens: expected at most " +
                                      std::to_string(model.config.seq_len) + " words together (the context), got " +
                                      std::to_string(words.size()) + " + " + std::to_string(tokens));
  const train::LmWordIndex index(model.vocabulary);
  std::vector<int> ids;
  for (const std::string& w : words) ids.push_back(index.Id(w));
  train::LmGenerateConfig config;
  config.tokens = tokens;
  config.temperature = temperature;
  config.seed = static_cast<uint32_t>(seed);
  std::vector<train::LmGenerated> generated;
  const attn::Status status = train::LmGenerate(model, ids, config, &generated);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab generate: %s\n", status.ToString().c_str());
    return kExitFailed;
  }
  // The cache when the last word was chosen: 2 (k, v) · L · h · positions · d_k floats.
  const int64_t cache_bytes = 4LL * 2 * model.config.layers * model.config.d_model * generated.back().cache_length;
  if (json) {
    std::string line = "{\"prompt\":[";
    for (size_t i = 0; i < ids.size(); ++i)
      line += (i ? "," : "") + JsonString(model.vocabulary[static_cast<size_t>(ids[i])]);
    line += "],\"generated\":[";
    for (size_t i = 0; i < generated.size(); ++i)
      line += std::string(i ? "," : "") + "{\"word\":" + JsonString(model.vocabulary[static_cast<size_t>(generated[i].id)]) +
              ",\"p\":" + JsonNumber(generated[i].p) + "}";
    line += "],\"cache_bytes\":" + std::to_string(cache_bytes) + "}\n";
    std::fputs(line.c_str(), stdout);
    return kExitOk;
  }
  std::string text;
  for (const int id : ids) text += model.vocabulary[static_cast<size_t>(id)] + " ";
  std::printf("%s|", text.c_str());
  for (const train::LmGenerated& g : generated) std::printf(" %s", model.vocabulary[static_cast<size_t>(g.id)].c_str());
  std::printf("\n\n");
  for (const train::LmGenerated& g : generated)
    std::printf("%-16s p = %.4f  (cache: %d positions)\n", model.vocabulary[static_cast<size_t>(g.id)].c_str(), g.p,
                g.cache_length);
  return kExitOk;
}

int LmEval(int argc, char** argv) {
  Flags flags(argc, argv);
  std::string model_path = kDefaultModel, corpus_path = kDefaultCorpus;
  if (!flags.Text("--model", &model_path) || !flags.Text("--corpus", &corpus_path)) return UsageError("lm-eval", flags.error());
  const bool json = flags.Switch("--json");
  if (!flags.Finish()) return UsageError("lm-eval", flags.error());
  train::LmModel model;
  int exit_code = kExitOk;
  if (!LoadModel("lm-eval", model_path, &model, &exit_code)) return exit_code;
  attn::train::Corpus corpus;
  const std::vector<uint8_t> bytes = attn::train::ReadFile(corpus_path);
  if (bytes.empty())
    return UsageError("lm-eval", "parse_error: --corpus: cannot read '" + Excerpt(corpus_path.c_str()) +
                                     "' (node scripts/prepare-brown.mjs writes it)");
  attn::Status status = attn::train::ReadCorpus(bytes, &corpus);
  attn::train::LmStreams streams;
  if (status.ok()) status = attn::train::MakeLmStreams(corpus, model.config.vocab, &streams);
  if (status.ok() && streams.vocabulary != model.vocabulary)
    status = attn::Status(attn::StatusCode::kInvalidArgument,
                          "the model's vocabulary is not this corpus's training split's most frequent words");
  if (!status.ok()) return UsageError("lm-eval", "--corpus '" + Excerpt(corpus_path.c_str()) + "': " + status.ToString());
  train::NgramBaselines baselines;
  train::LmScore score, unigram, bigram;
  status = baselines.Fit(streams.train, model.config.vocab);
  if (status.ok()) status = baselines.Score(streams.held_out, &unigram, &bigram);
  if (status.ok()) status = train::LmEvaluate(model.config, model.params, streams.held_out, kEvalBatch, &score);
  if (!status.ok()) {
    std::fprintf(stderr, "attnlab lm-eval: %s\n", status.ToString().c_str());
    return kExitFailed;
  }
  if (json) {
    std::printf("{\"tokens\":%lld,\"perplexity\":%s,\"baselines\":{\"unigram\":%s,\"bigram\":%s}}\n",
                static_cast<long long>(score.tokens), JsonNumber(score.perplexity()).c_str(),
                JsonNumber(unigram.perplexity()).c_str(), JsonNumber(bigram.perplexity()).c_str());
    return kExitOk;
  }
  std::printf("held-out split: %lld predictions (every word but the first, each from up to %d words before it)\n"
              "model perplexity   %.2f\nunigram perplexity %.2f\nbigram perplexity  %.2f (interpolated Kneser-Ney)\n"
              "the model's perplexity is %.1f%% below the bigram's\n",
              static_cast<long long>(score.tokens), model.config.seq_len, score.perplexity(), unigram.perplexity(),
              bigram.perplexity(), 100.0 * (1 - score.perplexity() / bigram.perplexity()));
  return kExitOk;
}

std::string GenerateHelp() {
  return "usage: attnlab generate --prompt TEXT [--tokens N] [--temperature T] [--seed S] [--model FILE]\n"
         "                        [--json]\n"
         "\n"
         "Continues a prompt with the language model trained on the Brown corpus (web/assets/lm-brown.bin):\n"
         "the prompt goes through the page's tokenizer, lower-cased (words outside the model's vocabulary\n"
         "become <unk>), then each new word costs one row of attention through the KV cache. The unknown\n"
         "word is never generated. The same seed gives the same words.\n"
         "\n"
         "flags:\n" +
         HelpFlag("--prompt TEXT", "required: the words to continue") +
         IntFlagHelp(kTokens, std::to_string(kDefaultTokens)) +
         HelpFlag(std::string(kTemperature.name) + " " + kTemperature.arg,
                  std::string(kTemperature.what) + ": " + Number(kTemperature.lo) + " to " + Number(kTemperature.hi) +
                      "; default " + Number(kDefaultTemperature)) +
         IntFlagHelp(kSampleSeed, std::to_string(kDefaultSeed)) +
         HelpFlag("--model FILE", std::string("the model; default ") + kDefaultModel + " (from the repository's root)") +
         HelpFlag("--json", "one line: {\"prompt\": [words], \"generated\": [{\"word\", \"p\"}, ...], \"cache_bytes\"}; "
                            "p is the model's probability of the word (temperature 1)") +
         HelpFlag("--help, -h", "this text") +
         HelpExitCodes("generated", "the model failed (a value not finite)") +
         HelpExample("attnlab generate --prompt \"the jury said\" --tokens 20 --temperature 0.8 --seed 1");
}

std::string LmEvalHelp() {
  return "usage: attnlab lm-eval [--model FILE] [--corpus FILE] [--json]\n"
         "\n"
         "The language model's perplexity on the Brown corpus's held-out split (every 10th document),\n"
         "against a unigram and an interpolated Kneser-Ney bigram model fitted on the training split, all\n"
         "scoring the same predictions with the same vocabulary (its last word, <unk>, stands for every\n"
         "other word).\n"
         "\n"
         "flags:\n" +
         HelpFlag("--model FILE", std::string("the model; default ") + kDefaultModel + " (from the repository's root)") +
         HelpFlag("--corpus FILE", std::string("the prepared corpus; default ") + kDefaultCorpus +
                                       " (node scripts/prepare-brown.mjs writes it)") +
         HelpFlag("--json", "one line: {\"tokens\": N, \"perplexity\": P, \"baselines\": {\"unigram\": U, \"bigram\": B}}") +
         HelpFlag("--help, -h", "this text") +
         HelpExitCodes("evaluated", "the model failed (a value not finite)") +
         HelpExample("attnlab lm-eval --json");
}

}  // namespace attnlab_cli
