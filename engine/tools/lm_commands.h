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

// attnlab lm --model FILE [--config FILE] [--heads H] --ids ID,... [--top K] [--tokens N] [--json]
// A GPT-2 / nanoGPT / attnlab safetensors checkpoint (lm_checkpoint.h) or an asset on token ids: the
// top-K next tokens at every position, a greedy continuation of N tokens; with --json one line
// {"ids": [...], "top": [[{"id", "token", "p"} × K] per position], "generated": [...]}. 2 on a bad
// flag or an unreadable or hostile model file (the reader's message); 1 if the model fails.
int Lm(int argc, char** argv);
std::string LmHelp();

}  // namespace attnlab_cli
