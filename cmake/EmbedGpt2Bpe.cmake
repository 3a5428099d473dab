# cmake -DIN=engine/train/data/gpt2-bpe.bin -DOUT=gpt2_bpe_data.cpp -P EmbedGpt2Bpe.cmake
# Writes the GPT-2 BPE asset into a C++ byte array (attn::train::Gpt2BpeAsset), so the CLI finds it
# from any working directory. 16 bytes a line, as hex literals: compilers take a 200 KB array of
# them in well under a second.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp"
  "// Generated from engine/train/data/gpt2-bpe.bin by cmake/EmbedGpt2Bpe.cmake. Do not edit.\n"
  "#include \"attn/train/gpt2_bpe.h\"\n\nnamespace attn::train {\nnamespace {\n"
  "alignas(4) const unsigned char kAsset[${size}] = {\n${bytes}\n};\n}  // namespace\n\n"
  "std::string_view Gpt2BpeAsset() { return {reinterpret_cast<const char*>(kAsset), sizeof kAsset}; }\n\n"
  "Status LoadGpt2Bpe(Gpt2Bpe* out) { return Gpt2Bpe::Load(kAsset, sizeof kAsset, out); }\n\n"
  "}  // namespace attn::train\n")
# Only touch the output when it changed, so unrelated builds do not recompile it.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
