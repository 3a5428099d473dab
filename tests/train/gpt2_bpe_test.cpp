// GPT-2's tokenizer (attn/train/gpt2_bpe.h) against js-tiktoken, the page's: the committed golden
// file (scripts/build-gpt2-golden.mjs) must be matched id for id; round trips, the display form,
// the bounds, and a broken asset refused.
#include "attn/train/gpt2_bpe.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace attn::train {
namespace {

const Gpt2Bpe& Bpe() {
  static const Gpt2Bpe* bpe = [] {
    auto* b = new Gpt2Bpe;
    const Status status = LoadGpt2Bpe(b);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return b;
  }();
  return *bpe;
}

struct GoldenCase {
  std::string text;
  std::vector<int> ids;
};

std::vector<GoldenCase> ReadGolden() {
  std::ifstream file(std::string(ATTN_TEST_DATA_DIR) + "/gpt2-bpe-golden.txt");
  EXPECT_TRUE(file) << "no tests/data/gpt2-bpe-golden.txt";
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    EXPECT_NE(tab, std::string::npos) << line;
    GoldenCase c;
    for (size_t i = 0; i + 1 < tab; i += 2) c.text.push_back(static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16)));
    std::istringstream ids(line.substr(tab + 1));
    for (int id; ids >> id;) c.ids.push_back(id);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Strict UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    const size_t len = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = cp << 6 | (c & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}

TEST(Gpt2Bpe, LoadsTheEmbeddedAsset) {
  ASSERT_TRUE(Bpe().loaded());
  EXPECT_EQ(Bpe().vocab_size(), kGpt2Vocab);
  EXPECT_EQ(Bpe().TokenBytes(kGpt2EndOfText), "<|endoftext|>");
  EXPECT_EQ(Bpe().TokenBytes(0), "!");    // GPT-2's byte order: printable ASCII first
  EXPECT_EQ(Bpe().TokenBytes(220), " ");
  EXPECT_EQ(Bpe().TokenBytes(262), " the");
}

// The key check: every text of the golden file gives js-tiktoken's ids (656 texts, 8,858 tokens:
// Brown-style sentences, contractions, numbers, punctuation runs, spaces / newlines / tabs,
// accented, Greek, Cyrillic, CJK and emoji text, seeded random strings over the characters the
// pattern tells apart, and invalid UTF-8).
TEST(Gpt2Bpe, MatchesJsTiktokenOnTheGoldenFile) {
  const std::vector<GoldenCase> cases = ReadGolden();
  ASSERT_EQ(cases.size(), 656u);
  size_t tokens = 0, invalid = 0, mismatches = 0;
  for (const GoldenCase& c : cases) {
    std::vector<int> ids;
    ASSERT_TRUE(Bpe().Encode(c.text, &ids).ok());
    tokens += c.ids.size();
    if (ids != c.ids && ++mismatches <= 10) {
      std::vector<std::string> pieces;
      Bpe().PreTokenize(c.text, &pieces);
      std::string shown;
      for (const std::string& p : pieces) shown += "[" + p + "]";
      ADD_FAILURE() << "text " << shown << ": " << ::testing::PrintToString(ids) << " expected "
                    << ::testing::PrintToString(c.ids);
    }
    std::string back;
    ASSERT_TRUE(Bpe().Decode(ids, &back).ok());
    if (ValidUtf8(c.text)) {
      EXPECT_EQ(back, c.text);  // the round trip
    } else {
      ++invalid;
      EXPECT_TRUE(ValidUtf8(back));  // invalid bytes came back as U+FFFD
      EXPECT_NE(back.find("\xEF\xBF\xBD"), std::string::npos);
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(tokens, 8858u);
  EXPECT_GE(invalid, 100u);  // the file's byte strings are mostly invalid
}

TEST(Gpt2Bpe, KnownIdsAndPieces) {
  std::vector<int> ids;
  ASSERT_TRUE(Bpe().Encode("Hello world", &ids).ok());
  EXPECT_EQ(ids, (std::vector<int>{15496, 995}));
  ASSERT_TRUE(Bpe().Encode("The jury said it's   here.\n\n", &ids).ok());
  EXPECT_EQ(ids, (std::vector<int>{464, 9002, 531, 340, 338, 220, 220, 994, 13, 628}));
  std::vector<std::string> pieces;
  ASSERT_TRUE(Bpe().PreTokenize("it's   here 'll\t\n x", &pieces).ok());
  EXPECT_EQ(pieces, (std::vector<std::string>{"it", "'s", "  ", " here", " '", "ll", "\t\n", " x"}));
  ASSERT_TRUE(Bpe().Encode("", &ids).ok());
  EXPECT_TRUE(ids.empty());
  // <|endoftext|> typed in a text is text.
  ASSERT_TRUE(Bpe().Encode("<|endoftext|>", &ids).ok());
  EXPECT_EQ(ids, (std::vector<int>{27, 91, 437, 1659, 5239, 91, 29}));
}

TEST(Gpt2Bpe, DisplayShowsSpacesEscapesAndCutCharacters) {
  EXPECT_EQ(Bpe().Display(262), "\xE2\x90\xA3the");  // " the" → ␣the
  EXPECT_EQ(Bpe().Display(628), "\\n\\n");
  EXPECT_EQ(Bpe().Display(26391), "\xE2\x82\xAC");  // € whole
  EXPECT_EQ(Bpe().TokenBytes(158), "\xE2");
  EXPECT_EQ(Bpe().Display(158), "\\xE2");           // a cut character's byte
  EXPECT_EQ(Bpe().Display(kGpt2EndOfText), "<|endoftext|>");
  EXPECT_EQ(Bpe().Display(-1), "");
  EXPECT_EQ(Bpe().Display(kGpt2Vocab), "");
  std::vector<int> ids;
  ASSERT_TRUE(Bpe().Encode("\x01\\", &ids).ok());
  std::string shown;
  for (const int id : ids) shown += Bpe().Display(id);
  EXPECT_EQ(shown, "\\x01\\\\");
}

TEST(Gpt2Bpe, DecodeRefusesIdsOutOfRange) {
  std::string bytes = "kept";
  const Status status = Bpe().Decode({464, 60000}, &bytes);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(), "ids[1]: expected 0–50256, got 60000");
  EXPECT_EQ(bytes, "kept");
}

TEST(Gpt2Bpe, BoundedInputAndAMebibyteRun) {
  std::vector<int> ids;
  const Status status = Bpe().Encode(std::string(kGpt2MaxTextBytes + 1, 'a'), &ids);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(), "text: expected at most 1048576 bytes, got 1048577");
  // One piece of 1 MiB: the heap keeps the merges O(n log n) (js-tiktoken's rescan is O(n²)); no
  // duration is asserted (a reader's machine is slower): ctest's timeout is the hang guard.
  ASSERT_TRUE(Bpe().Encode(std::string(kGpt2MaxTextBytes, '!'), &ids).ok());
  std::string back;
  ASSERT_TRUE(Bpe().Decode(ids, &back).ok());
  EXPECT_EQ(back, std::string(kGpt2MaxTextBytes, '!'));
  Gpt2Bpe empty;
  EXPECT_EQ(empty.Encode("x", &ids).code(), StatusCode::kInvalidArgument);
}

TEST(Gpt2Bpe, RefusesABrokenAsset) {
  const std::string_view asset = Gpt2BpeAsset();
  const auto* bytes = reinterpret_cast<const uint8_t*>(asset.data());
  Gpt2Bpe bpe;
  // Every truncation point of the header and the first merges, and some further on: refused, never read past.
  for (size_t size : {size_t{0}, size_t{7}, size_t{8}, size_t{19}, size_t{33}, size_t{300}, size_t{1000},
                      asset.size() / 2, asset.size() - 9, asset.size() - 1}) {
    const Status status = Gpt2Bpe::Load(bytes, size, &bpe);
    EXPECT_EQ(status.code(), StatusCode::kParseError) << size;
    EXPECT_FALSE(bpe.loaded());
  }
  std::string longer(asset);
  longer.push_back('\0');
  EXPECT_EQ(Gpt2Bpe::Load(reinterpret_cast<const uint8_t*>(longer.data()), longer.size(), &bpe).message(),
            "gpt2 bpe: 1 bytes after the classes");
  // A merge naming a later rank (rank 256's left part set to 300).
  std::string bad(asset);
  const size_t first_merge = 8 + 12 + 13 + 256;
  bad[first_merge] = static_cast<char>(300 & 0xFF);
  bad[first_merge + 1] = static_cast<char>(300 >> 8);
  EXPECT_EQ(Gpt2Bpe::Load(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), &bpe).message(),
            "gpt2 bpe: merges: rank 256: expected two earlier ranks, got 300 and 83");
  EXPECT_FALSE(bpe.loaded());
}

}  // namespace
}  // namespace attn::train
