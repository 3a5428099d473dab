// The view state round-trips through its short string; bad strings are reported, not fatal.
#include <gtest/gtest.h>

#include "lessons/view_state.h"

namespace lessons {
namespace {

TEST(ViewState, DefaultsSerialiseToAnEmptyString) { EXPECT_EQ(SerializeState(ViewState{}), ""); }

TEST(ViewState, RoundTripsEveryChangedField) {
  ViewState s;
  s.view = ViewId::kOrder;
  s.sentence.text = "Sky is clear & bright, 100% — ok?";
  s.sentence.vectors = VectorSource::kHash;
  s.sentence.hash_dim = 7;
  s.words.temperature = 0.3f;
  s.words.spotlight = 2;
  s.words.step = 1;
  s.words.lines = true;
  s.order.shuffle = 5;
  s.order.encoding = OrderEncoding::kSinusoidal;
  const std::string text = SerializeState(s);
  EXPECT_EQ(text.find(' '), std::string::npos) << text;
  EXPECT_EQ(text.find('#'), std::string::npos) << text;
  ViewState back;
  ASSERT_TRUE(ParseState(text, &back).ok()) << text;
  EXPECT_EQ(SerializeState(back), text);
  EXPECT_EQ(back.sentence.text, s.sentence.text);
  EXPECT_EQ(back.words.temperature, 0.3f);
  EXPECT_EQ(back.view, ViewId::kOrder);
  EXPECT_TRUE(back.words.lines);
}

TEST(ViewState, AcceptsALeadingHashAndPlusForSpace) {
  ViewState s;
  ASSERT_TRUE(ParseState("#s=The+cat&w.t=2", &s).ok());
  EXPECT_EQ(s.sentence.text, "The cat");
  EXPECT_EQ(s.words.temperature, 2.0f);
}

TEST(ViewState, BadFieldsAreReportedAndSkippedWhileGoodOnesApply) {
  struct Case { const char* text; attn::StatusCode code; const char* message_part; };
  const Case cases[] = {
      {"w.t=9&s=ok", attn::StatusCode::kOutOfRange, "'w.t': expected 0.05..5, got 9"},
      {"w.t=abc&s=ok", attn::StatusCode::kParseError, "'w.t': expected a finite number"},
      {"w.t=nan&s=ok", attn::StatusCode::kParseError, "finite"},
      {"v=99&s=ok", attn::StatusCode::kOutOfRange, "'v': expected 0..8"},
      {"w.l=yes&s=ok", attn::StatusCode::kParseError, "expected 0 or 1"},
      {"zz=1&s=ok", attn::StatusCode::kParseError, "'zz': unknown key"},
      {"s=ok&s2", attn::StatusCode::kParseError, "expected key=value"},
      {"s=ok&d=%zz", attn::StatusCode::kParseError, "expected an integer"},
      {"o.sh=&s=ok", attn::StatusCode::kParseError, "expected an integer"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    ViewState s;
    const attn::Status status = ParseState(c.text, &s);
    EXPECT_EQ(status.code(), c.code) << status.ToString();
    EXPECT_NE(status.message().find(c.message_part), std::string::npos) << status.message();
    EXPECT_EQ(s.sentence.text, "ok");         // the good field applied
    EXPECT_EQ(s.words.temperature, 1.0f);     // the bad one did not
  }
  ViewState s;
  EXPECT_EQ(ParseState("s=%4", &s).code(), attn::StatusCode::kParseError);
  EXPECT_EQ(ParseState("s=" + std::string(1000, 'a'), &s).code(), attn::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace lessons
