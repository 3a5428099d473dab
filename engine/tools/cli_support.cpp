#include "cli_support.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attnlab_cli {
namespace {

constexpr size_t kFlagColumn = 22;  // where a help flag's description starts
constexpr size_t kWidth = 100;      // columns of a help line

}  // namespace

bool OpenForWriting(const std::string& path, std::FILE** file, std::string* error) {
  *file = std::fopen(path.c_str(), "wb");
  if (!*file) *error = "cannot write '" + Excerpt(path.c_str()) + "' (" + std::strerror(errno) + ")";
  return *file != nullptr;
}

bool WriteAndClose(std::FILE* file, const std::string& path, const std::string& bytes, std::string* error) {
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  if (std::fclose(file) == 0 && written) return true;
  *error = "cannot write '" + Excerpt(path.c_str()) + "'";
  return false;
}

int UsageError(const std::string& command, const std::string& reason) {
  const std::string prefix = command.empty() ? "attnlab" : "attnlab " + command;
  std::fprintf(stderr, "%s: %s\nsee %s\n", prefix.c_str(), reason.c_str(),
               (command.empty() ? std::string("attnlab help") : "attnlab help " + command).c_str());
  return kExitBadInput;
}

const char* FlagValueCode(const char* got, bool integer) {
  int64_t whole = 0;
  if (integer) return ParseInteger(got, INT64_MIN, INT64_MAX, &whole) ? "out_of_range" : "invalid_argument";
  if (!got || !*got || std::strchr(" \t\n\v\f\r", *got)) return "invalid_argument";
  char* end = nullptr;
  const double v = std::strtod(got, &end);
  return end != got && *end == '\0' && std::isfinite(v) ? "out_of_range" : "invalid_argument";
}

int BadFlag(const std::string& command, const std::string& flag, const std::string& expected,
            const char* got, const char* code) {
  return UsageError(command, std::string(code ? code : FlagValueCode(got)) + ": " + flag + ": expected " + expected +
                                 ", got " + (got ? "'" + Excerpt(got) + "'" : std::string("nothing")));
}

int UnknownFlag(const std::string& command, const char* arg) {
  return UsageError(command, "unknown_option: unknown flag '" + Excerpt(arg) + "'");
}

std::string HelpFlag(const std::string& flag, const std::string& description) {
  std::string text = "  " + flag;
  size_t column = text.size();
  if (column + 2 > kFlagColumn) {
    text += "\n";
    column = 0;
  }
  // Word by word, each line at most kWidth columns (a word longer than that stands alone).
  for (size_t at = 0; at < description.size();) {
    const size_t space = std::min(description.find(' ', at), description.size());
    const std::string word = description.substr(at, space - at);
    at = space + 1;
    if (column > kFlagColumn && column + 1 + word.size() > kWidth) {
      text += "\n";
      column = 0;
    }
    if (column < kFlagColumn) {
      text += std::string(kFlagColumn - column, ' ');
      column = kFlagColumn;
    } else {
      text += ' ';
      column += 1;
    }
    text += word;
    column += word.size();
  }
  return text + "\n";
}

std::string HelpExitCodes(const std::string& ok, const std::string& failed,
                          const std::string& bad_input) {
  std::string text = "\nexit codes:\n  0  " + ok + "\n";
  if (!failed.empty()) text += "  1  " + failed + "\n";
  return text + "  2  " + bad_input + "\n";
}

std::string HelpExample(const std::string& command_line) {
  return "\nexample:\n  " + command_line + "\n";
}

std::string Excerpt(const char* text) {
  const std::string s = text ? text : "";
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

bool ParseInteger(const char* text, int64_t lo, int64_t hi, int64_t* out) {
  if (!text || !(*text == '-' || (*text >= '0' && *text <= '9'))) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno == ERANGE || end == text || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool ParseFinite(const char* text, float* out) {
  if (!text || !*text || std::strchr(" \t\n\v\f\r", *text)) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (errno == ERANGE || end == text || *end != '\0' || !std::isfinite(v) || std::fabs(v) > 3.0e38)
    return false;
  *out = static_cast<float>(v);
  return true;
}

bool AsksForHelp(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  }
  return false;
}

}  // namespace attnlab_cli
