// GPT-2's tokenizer: byte-level BPE over the pre-tokenizer's pieces, giving the ids a GPT-2
// checkpoint reads; the same ids as js-tiktoken (the page's tokenizer), checked on a golden file
// (tests/data/gpt2-bpe-golden.txt). Its data, the ranks and the Unicode classes, is one asset,
// engine/train/data/gpt2-bpe.bin, extracted from js-tiktoken by scripts/build-gpt2-vocab.mjs (its
// README says from what); the library reads it from bytes (no files here: the CLI embeds them,
// attn::gpt2_bpe_data), so it builds for the page too. No exceptions, no threads.
//
// [SECTION] Encoding (what tiktoken does, in this order)
//   1. UTF-8 → code points; invalid bytes become U+FFFD, one per maximal invalid subpart (the
//      WHATWG rule: what the page's TextDecoder, and so js-tiktoken, sees for the same bytes).
//   2. Pieces, by GPT-2's pattern, leftmost alternative first:
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//      (hand-written over the code points; "' ?" is U+0020 only; \s is JavaScript's, as js-tiktoken
//      runs it: Unicode White_Space without U+0085 and U+001C–U+001F, plus U+FEFF). So
//      "  the" is " " + " the": a run of spaces gives its last space to the word after it.
//   3. Each piece's UTF-8 bytes: one id if the whole is a token; else start from single bytes and
//      merge, again and again, the adjacent pair whose bytes together have the lowest rank (the
//      leftmost on a tie) until no adjacent pair is a token. The ranks are the merge priority.
//   "<|endoftext|>" in the text is text (id 50256 is never produced by Encode).
// Round trip: Decode(Encode(x)) == x for valid UTF-8; otherwise x with its U+FFFD replacements.
// Cost: O(n log n) per piece (a heap of adjacent pairs), so a long run of one character is cheap.
//
// [SECTION] Display: a token "as the reader reads it" (the CLI's text output, the page's labels)
//   U+0020 → "␣" (U+2423, every space: a token's leading space is the word boundary GPT-2 learned)
//   '\n' → "\n", '\t' → "\t", '\r' → "\r", '\\' → "\\" (two characters each: backslash, letter)
//   other C0 controls and DEL → "\x1B" style; bytes that are not whole UTF-8 characters (GPT-2
//   splits rare characters into byte tokens: "€" is three) → "\xE2" style, upper-case hex.
//   Everything else as its UTF-8. Display(ids) of several tokens is their displays joined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attn/status.h"

namespace attn::train {

constexpr int kGpt2Vocab = 50257;             // 50,256 ranks + <|endoftext|>
constexpr int kGpt2EndOfText = 50256;
constexpr size_t kGpt2MaxTextBytes = 1 << 20;  // Encode's input, bounded (1 MiB)

class Gpt2Bpe {
 public:
  Gpt2Bpe() = default;
  // Movable, not copyable: rank_ views the strings of tokens_, which a move keeps in place.
  Gpt2Bpe(Gpt2Bpe&&) = default;
  Gpt2Bpe& operator=(Gpt2Bpe&&) = default;
  Gpt2Bpe(const Gpt2Bpe&) = delete;
  Gpt2Bpe& operator=(const Gpt2Bpe&) = delete;

  // Reads gpt2-bpe.bin's bytes (format: scripts/build-gpt2-vocab.mjs): the magic, the counts
  // against the bytes left, each merge pair naming two earlier ranks, no two ranks the same bytes,
  // each class's ranges sorted and within U+10FFFF. kParseError "gpt2 bpe: …" naming the part.
  // `out` is untouched on error.
  static Status Load(const uint8_t* bytes, size_t size, Gpt2Bpe* out);

  bool loaded() const { return !tokens_.empty(); }
  int vocab_size() const { return static_cast<int>(tokens_.size()); }  // 50,257 when loaded

  // Text (any bytes, ≤ kGpt2MaxTextBytes) → ids, each < kGpt2EndOfText. kOutOfRange
  // "text: expected at most 1048576 bytes, got N"; kInvalidArgument when not loaded.   -> (tokens)
  Status Encode(std::string_view text, std::vector<int>* ids) const;

  // The pieces of step 2, as UTF-8 (invalid bytes already U+FFFD), for tests and the curious.
  Status PreTokenize(std::string_view text, std::vector<std::string>* pieces) const;

  // Ids → the bytes they stand for, concatenated (may be invalid UTF-8 when a character is cut).
  // kOutOfRange "ids[3]: expected 0–50256, got 60000".
  Status Decode(const std::vector<int>& ids, std::string* bytes) const;

  // One token's bytes ("" for an id out of range: callers check ids first).
  std::string_view TokenBytes(int id) const;

  // One token's display form (the header's [SECTION] Display); "" for an id out of range.
  std::string Display(int id) const;

 private:
  enum Class : uint8_t { kOther = 0, kLetter, kNumber, kSpace };
  Class ClassOf(uint32_t cp) const;
  // Steps 1–2: the checks, `text` as valid UTF-8 and its pieces as byte ranges of it.
  Status Split(std::string_view text, std::string* utf8, std::vector<std::pair<size_t, size_t>>* pieces) const;
  void Pieces(const std::vector<uint32_t>& cps, const std::vector<size_t>& offsets,
              std::vector<std::pair<size_t, size_t>>* pieces) const;
  void MergePiece(std::string_view piece, std::vector<int>* ids) const;

  std::vector<std::string> tokens_;                 // (V) each id's bytes
  std::unordered_map<std::string_view, int> rank_;  // bytes → rank, views into tokens_ (not the special)
  std::vector<std::pair<uint32_t, uint32_t>> ranges_[4];  // per Class but kOther: sorted [first, last]
  Class ascii_[128] = {};
};

// The committed asset, embedded in the binary (library attn::gpt2_bpe_data: link it to call these;
// 207 KB the page's modules need not carry).
std::string_view Gpt2BpeAsset();
// Gpt2Bpe::Load of it (kParseError only if the build embedded a broken file).
Status LoadGpt2Bpe(Gpt2Bpe* out);

}  // namespace attn::train
