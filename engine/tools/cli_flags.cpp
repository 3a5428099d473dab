#include "cli_flags.h"

#include <cstdio>

namespace attnlab_cli {

std::string Number(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

std::string IntFlagHelp(const IntFlag& flag, const std::string& default_value) {
  return HelpFlag(std::string(flag.name) + " " + flag.arg,
                  std::string(flag.what) + ": " + std::to_string(flag.lo) + " to " +
                      std::to_string(flag.hi) + "; default " + default_value);
}

}  // namespace attnlab_cli
