// JSON text for the CLI's machine-readable lines (`check --json`, `train --json`), written by hand
// because the CLI prints a line as soon as it is known: no document is built.
#pragma once

#include <string>
#include <string_view>

namespace attnlab_cli {

// `text` as a JSON string literal, quotes included: '"' and '\' escaped, control characters
// (U+0000 to U+001F) and DEL as \n, \t, ... or \u00XX, valid UTF-8 kept as it is, and each byte of
// an invalid UTF-8 sequence (a file path may hold any bytes) as \ufffd, so the result is always
// valid JSON and valid UTF-8 on one line.
std::string JsonString(std::string_view text);

// A finite number with the fewest digits that read back as the same double ("0.001", not
// "0.0010000000000000000"); null when it is not finite (JSON has no inf or NaN).
std::string JsonNumber(double value);

// `text` cut to at most `max_bytes` bytes without splitting a UTF-8 character, and then, when
// anything was cut, "... (N bytes)" with the whole length: how the CLI shows a name from a case
// file.
std::string CutText(const std::string& text, size_t max_bytes);

}  // namespace attnlab_cli
