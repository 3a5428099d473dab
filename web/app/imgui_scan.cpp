// Dear ImGui's sscanf (web/CMakeLists.txt builds imgui with -Dsscanf=attnlab_imgui_sscanf): a number
// typed into a slider (Ctrl+click), the colour and .ini parsers. musl's scanf is 4 KB of wasm that an
// embed, with 500 KB to spend, pays for; this one reads with the strto* functions the page links
// anyway. It takes what ImGui 1.90.1 asks for: literal text and spaces, %d %i %u %x %X (a width,
// l and ll) and %f %e %g (l: double). It returns what sscanf returns: the count assigned, or EOF when
// the input ends before the first conversion (tests/web/imgui_scan_test.cpp compares the two).
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" int attnlab_imgui_sscanf(const char* input, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int assigned = 0;
  const char* p = input;
  for (const char* f = format; *f; ++f) {
    if (*f != '%') {
      if (std::isspace(static_cast<unsigned char>(*f))) {
        while (std::isspace(static_cast<unsigned char>(*p))) ++p;
        continue;
      }
      if (*p != *f) break;
      ++p;
      continue;
    }
    ++f;
    int width = 0;
    while (std::isdigit(static_cast<unsigned char>(*f))) width = width * 10 + (*f++ - '0');
    int longs = 0;
    while (*f == 'l') ++longs, ++f;
    const char conversion = *f;
    while (std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (*p == '\0') {
      if (assigned == 0) assigned = EOF;  // an input failure before the first conversion
      break;
    }
    // A width reads at most that many characters: %02X of "FF8000" is FF.
    char limited[64];
    const char* from = p;
    if (width > 0) {
      const size_t n = width < 63 ? static_cast<size_t>(width) : 63;
      std::strncpy(limited, p, n);
      limited[n] = '\0';
      from = limited;
    }
    char* end = nullptr;
    if (conversion == 'd' || conversion == 'i') {
      const long long v = std::strtoll(from, &end, conversion == 'i' ? 0 : 10);
      if (end == from) break;
      if (longs >= 2) *va_arg(args, long long*) = v;
      else if (longs == 1) *va_arg(args, long*) = static_cast<long>(v);
      else *va_arg(args, int*) = static_cast<int>(v);
    } else if (conversion == 'u' || conversion == 'x' || conversion == 'X') {
      const unsigned long long v = std::strtoull(from, &end, conversion == 'u' ? 10 : 16);
      if (end == from) break;
      if (longs >= 2) *va_arg(args, unsigned long long*) = v;
      else if (longs == 1) *va_arg(args, unsigned long*) = static_cast<unsigned long>(v);
      else *va_arg(args, unsigned*) = static_cast<unsigned>(v);
    } else if (conversion == 'f' || conversion == 'e' || conversion == 'g') {
      if (longs > 0) {
        const double v = std::strtod(from, &end);
        if (end == from) break;
        *va_arg(args, double*) = v;
      } else {
        const float v = std::strtof(from, &end);
        if (end == from) break;
        *va_arg(args, float*) = v;
      }
    } else {
      break;  // a conversion ImGui does not use
    }
    p += end - from;
    ++assigned;
  }
  va_end(args);
  return assigned;
}
