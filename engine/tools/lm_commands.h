// `attnlab generate` and `attnlab lm-eval`: the language model of web/assets/lm-brown.bin
// (attn/train/lm_inference.h) from the command line.
#pragma once

#include <string>

namespace attnlab_cli {

// attnlab generate --prompt TEXT [--tokens N] [--temperature T] [--seed S] [--model FILE] [--json]
// The prompt through the page's tokenizer (lower-cased; words outside the vocabulary are <unk>),
// then N words through the KV cache, greedy at T = 0, else sampled with the seed. Without --json
// the prompt and the words with their probabilities; with it one line {"prompt": [words],
// "generated": [{"word", "p"}, ...], "cache_bytes"}. 2 on a bad flag, an unreadable model or a
// prompt too long for the context; 1 if the model fails.
int Generate(int argc, char** argv);
std::string GenerateHelp();

// attnlab lm-eval [--model FILE] [--corpus FILE] [--json]
// The model's perplexity on the Brown corpus's held-out split (every 10th document; the corpus as
// scripts/prepare-brown.mjs prepares it) against a unigram and a Kneser–Ney bigram baseline fitted
// on the training split; with --json the last line is {"tokens": N, "perplexity": P,
// "baselines": {"unigram": U, "bigram": B}}.
int LmEval(int argc, char** argv);
std::string LmEvalHelp();

}  // namespace attnlab_cli
