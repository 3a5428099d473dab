#include "lm_commands.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/train/lm_asset.h"
#include "attn/train/lm_inference.h"
#include "attn/train/lm_trainer.h"
#include "attn/train/ngram_baselines.h"
#include "cli_flags.h"
#include "cli_support.h"
#include "json_text.h"
#include "lessons/brown_corpus.h"
#include "lessons/text.h"

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

}  // namespace

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
  for (const std::string& token : lessons::Tokenize(prompt)) words.push_back(lessons::NormalizeToken(token));
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
  lessons::Corpus corpus;
  const std::vector<uint8_t> bytes = lessons::ReadFile(corpus_path);
  if (bytes.empty())
    return UsageError("lm-eval", "parse_error: --corpus: cannot read '" + Excerpt(corpus_path.c_str()) +
                                     "' (node scripts/prepare-brown.mjs writes it)");
  attn::Status status = lessons::ReadCorpus(bytes, &corpus);
  lessons::LmStreams streams;
  if (status.ok()) status = lessons::MakeLmStreams(corpus, model.config.vocab, &streams);
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
