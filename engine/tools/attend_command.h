// `attnlab attend`: view 1's computation on a sentence from the command line.
#pragma once

#include <string>

namespace attnlab_cli {

// attnlab attend SENTENCE [--dim D] [--temperature T] [--scale S] [--kernel K]
// Prints the tokens, the attention weights and the output rows. argv: the arguments after
// "attend". Returns the exit code (cli_support.h).
int Attend(int argc, char** argv);
std::string AttendHelp();

}  // namespace attnlab_cli
