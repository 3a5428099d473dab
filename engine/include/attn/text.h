// Text to vectors: the tokenizer and the deterministic stand-in embedding the page, the CLI and the
// npm package use for words without a real vector.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/matrix.h"

namespace attn {

// Splits on whitespace and around punctuation, and splits clitics off like the Penn Treebank:
// "The cat didn't sit." -> {"The", "cat", "did", "n't", "sit", "."}
std::vector<std::string> Tokenize(std::string_view text);

// Lower-cased ASCII copy, the key used for vector look-ups.
std::string NormalizeToken(std::string_view token);

// A deterministic pseudo-random vector for a token: the same token always gives the same
// vector. Entries ~ N(0, 1), like unit-variance features, so x·x/√d ≈ √d: each word is its own
// closest match, as with real word vectors.   -> (1, dim)
Matrix HashEmbedding(std::string_view token, int dim);

// One HashEmbedding row per token.   -> (tokens.size(), dim)
Matrix HashEmbeddings(const std::vector<std::string>& tokens, int dim);

// The shortest "%g" text that reads back (strtof / strtod) as the same value: 0.1f -> "0.1",
// 1e-7 -> "1e-07"; "inf", "-inf", "nan" for the others. How a view state, a CSV and the CLI's JSON
// write a number.
std::string ShortestNumberText(float value);
std::string ShortestNumberText(double value);

}  // namespace attn
