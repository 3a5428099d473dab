// What every attnlab command shares: how a usage error is reported, how a help text is laid out,
// and how a flag's number is read. Exit codes, the same for every command:
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace attnlab_cli {

constexpr int kExitOk = 0;  // done; `check`: every case passed
constexpr int kExitFailed =
    1;  // `check`: a case's outputs differ; `train`, `datasize`: training failed
constexpr int kExitBadInput = 2;  // bad input or usage: the reason is on stderr

// Prints "attnlab COMMAND: REASON" and "see attnlab help COMMAND" on stderr (without a command:
// "attnlab: REASON", "see attnlab help") and returns kExitBadInput.
int UsageError(const std::string& command, const std::string& reason);

// The code of a bad flag value (README's "Limits and errors"): "out_of_range" for a number of the
// kind the flag takes (an integer when `integer`, else any finite number) outside its range,
// "invalid_argument" for anything else (2.5 for an integer flag, "x", nothing).
const char* FlagValueCode(const char* got, bool integer = false);

// A bad flag value: "CODE: FLAG: expected EXPECTED, got 'GOT'" (GOT an Excerpt; "got nothing" when
// the value is missing; CODE FlagValueCode(got) unless given) as a UsageError of `command`.
int BadFlag(const std::string& command, const std::string& flag, const std::string& expected,
            const char* got, const char* code = nullptr);

// "unknown_option: unknown flag 'ARG'" as a UsageError of `command`.
int UnknownFlag(const std::string& command, const char* arg);

// One flag of a help text, "  --name ARG   what it does", the descriptions in one column and
// wrapped at 100 columns (a flag too wide for its column puts its description on the next line).
std::string HelpFlag(const std::string& flag, const std::string& description);

// The help texts' last part: the exit codes this command gives (`failed` empty: it never gives 1),
// then the example.
std::string HelpExitCodes(
    const std::string& ok, const std::string& failed,
    const std::string& bad_input = "bad input or usage (the reason on stderr)");
std::string HelpExample(const std::string& command_line);

// "a flag value, bounded": `text` cut to 40 bytes with "..." when longer, for error messages.
std::string Excerpt(const char* text);

// The whole of `text` as a base-10 integer in [lo, hi]: no sign other than a leading '-', no
// spaces, no fraction ("2.5" is not 2), no trailing garbage, no overflow.
bool ParseInteger(const char* text, int64_t lo, int64_t hi, int64_t* out);

// The whole of `text` as a finite float: no spaces, no trailing garbage, no inf or nan.
bool ParseFinite(const char* text, float* out);

// Opens `path` for writing (truncating it); false with "cannot write 'PATH'" in *error.
bool OpenForWriting(const std::string& path, std::FILE** file, std::string* error);
// Writes all of `bytes` and closes `file`; false with "cannot write 'PATH'" in *error.
bool WriteAndClose(std::FILE* file, const std::string& path, const std::string& bytes, std::string* error);

// A help flag among the arguments after the command ("--help" or "-h").
bool AsksForHelp(int argc, char** argv);

}  // namespace attnlab_cli
