// `attnlab run` and `attnlab check`: case files (attn/case_io.h) from the command line.
#pragma once

#include <string>

namespace attnlab_cli {

// attnlab run [--kernel K] [--max-input-mb N] [--max-elements N] CASE.json
// Prints the outputs the case lists (every output when it lists none) as {"outputs": {...}}.
// argv: the arguments after "run". Returns the exit code (cli_support.h).
int Run(int argc, char** argv);
std::string RunHelp();

// attnlab check [--json] [--kernel K] [--max-input-mb N] [--max-elements N] CASE.json...
// One verdict per case as soon as it is known, then the counts; exit 2 if a case could not be
// read or run, else 1 if one failed, else 0. CheckHelp() describes both output formats.
int Check(int argc, char** argv);
std::string CheckHelp();

}  // namespace attnlab_cli
