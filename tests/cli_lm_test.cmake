# `attnlab generate` and `attnlab lm-eval` (the language model, web/assets/lm-brown.bin): the JSON
# contract, the same seed giving the same words, bad flags exiting 2 with the reason; lm-eval's
# held-out numbers when the prepared corpus is there (node scripts/prepare-brown.mjs) and -DSANITIZED is off (the test says
# "lm-eval skipped" otherwise, and ctest reports it skipped).
#   cmake -DATTNLAB=path/to/attnlab -DMODEL=web/assets/lm-brown.bin -DPART=generate -P cli_lm_test.cmake
#   cmake -DATTNLAB=path/to/attnlab -DMODEL=web/assets/lm-brown.bin -DPART=eval
#         -DCORPUS=.cache/brown/brown-upos.bin -P cli_lm_test.cmake
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

if(PART STREQUAL "generate")

# A JSON string may hold \" (the model writes the quote mark).
set(word "{\"word\":\"([^\"\\\\]|\\\\.)+\",\"p\":[0-9.e-]+}")
set(json "^{\"prompt\":\\[\"the\",\"jury\",\"said\"\\],\"generated\":\\[${word}(,${word})*\\],\"cache_bytes\":[0-9]+}\n$")
expect_run("the issue's example" 0 "${json}" "^$"
           ${ATTNLAB} generate --prompt "the jury said" --tokens 20 --temperature 0.8 --seed 1 --model ${MODEL} --json)
foreach(run 1 2)
  execute_process(COMMAND ${ATTNLAB} generate --prompt "The jury said" --tokens 20 --temperature 0.8 --seed 1
                          --model ${MODEL} --json OUTPUT_VARIABLE out_${run})
endforeach()
if(NOT out_1 STREQUAL out_2)
  message(FATAL_ERROR "the same seed gave other words:\n${out_1}${out_2}")
endif()
string(REGEX MATCHALL "\"word\"" words "${out_1}")
list(LENGTH words count)
if(NOT count EQUAL 20)
  message(FATAL_ERROR "--tokens 20 gave ${count} words:\n${out_1}")
endif()
execute_process(COMMAND ${ATTNLAB} generate --prompt "the jury said" --tokens 20 --temperature 0.8 --seed 2
                        --model ${MODEL} --json OUTPUT_VARIABLE other)
if(other STREQUAL out_1)
  message(FATAL_ERROR "another seed gave the same 20 words:\n${other}")
endif()
# (CMake's regular expressions have no {n}: the five words and lines are spelled out.)
set(w " [^ \n]+")
set(line "[^\n]+ p = [0-9.]+  \\(cache: [0-9]+ positions\\)\n")
expect_run("greedy, text" 0 "^the jury said \\|${w}${w}${w}${w}${w}\n\n${line}${line}${line}${line}${line}$" "^$"
           ${ATTNLAB} generate --prompt "the jury said" --tokens 5 --temperature 0 --model ${MODEL})
expect_run("an unknown word is <unk>" 0 "^{\"prompt\":\\[\"the\",\"<unk>\"\\]" "^$"
           ${ATTNLAB} generate --prompt "the zyzzyva" --tokens 1 --model ${MODEL} --json)

expect_run("no prompt" 2 "^$" "^attnlab generate: invalid_argument: --prompt: expected at least one word\nsee attnlab help generate\n$"
           ${ATTNLAB} generate --model ${MODEL})
expect_run("tokens out of range" 2 "^$" "^attnlab generate: out_of_range: --tokens: expected 1–255, got '0'\n"
           ${ATTNLAB} generate --prompt "the" --tokens 0 --model ${MODEL})
expect_run("a negative temperature" 2 "^$" "^attnlab generate: out_of_range: --temperature: expected 0 to 10, got '-1'\n"
           ${ATTNLAB} generate --prompt "the" --temperature -1 --model ${MODEL})
expect_run("a seed given twice" 2 "^$" "^attnlab generate: invalid_argument: --seed: given twice \\('1' and '2'\\)\n"
           ${ATTNLAB} generate --prompt "the" --seed 1 --seed 2 --model ${MODEL})
expect_run("more than the context" 2 "^$"
           "^attnlab generate: out_of_range: --prompt and --tokens: expected at most 64 words together \\(the context\\), got 3 \\+ 62\n"
           ${ATTNLAB} generate --prompt "the jury said" --tokens 62 --model ${MODEL})
expect_run("a missing model" 2 "^$" "^attnlab generate: parse_error: --model: cannot read 'no/such/model.bin'\n"
           ${ATTNLAB} generate --prompt "the" --model no/such/model.bin)
expect_run("a model that is not one" 2 "^$" "^attnlab generate: --model '.*': parse_error: lm asset: expected the magic"
           ${ATTNLAB} generate --prompt "the" --model ${CMAKE_CURRENT_LIST_FILE})
endif()

if(PART STREQUAL "eval")
expect_run("lm-eval: an unknown flag" 2 "^$" "^attnlab lm-eval: unknown_option: unknown flag '--bogus'\n"
           ${ATTNLAB} lm-eval --bogus)
expect_run("lm-eval: a missing corpus" 2 "^$" "^attnlab lm-eval: parse_error: --corpus: cannot read 'no/such/corpus.bin'"
           ${ATTNLAB} lm-eval --model ${MODEL} --corpus no/such/corpus.bin)

if(SANITIZED)
  message("lm-eval skipped: the held-out split is checked by the optimised build (it takes minutes under the sanitizers)")
elseif(EXISTS "${CORPUS}")
  # The numbers web/assets/README.md states for the shipped model.
  expect_run("lm-eval on the held-out split" 0
             "^{\"tokens\":119230,\"perplexity\":69\\.59[0-9]*,\"baselines\":{\"unigram\":251\\.06[0-9]*,\"bigram\":112\\.7[0-9]*}}\n$" "^$"
             ${ATTNLAB} lm-eval --model ${MODEL} --corpus ${CORPUS} --json)
else()
  message("lm-eval skipped: no ${CORPUS} (node scripts/prepare-brown.mjs writes it)")
endif()
endif()

# `attnlab lm` on the committed GPT-2 / nanoGPT checkpoints (tests/data/checkpoints, issue 28): the
# JSON contract (ids, top K per position), greedy tokens, --prompt (GPT-2's BPE, attnlab's words),
# and hostile or incomplete input exiting 2 with the reader's message.
#   cmake -DATTNLAB=path/to/attnlab -DMODEL=web/assets/lm-brown.bin -DPART=checkpoint -DDATA=tests/data
#         -DSCRATCH=build/native/tests -P cli_lm_test.cmake
if(PART STREQUAL "checkpoint")
set(ck ${DATA}/checkpoints)
set(entry "{\"id\":[0-9]+,\"token\":\"\\[[0-9]+\\]\",\"p\":[0-9.e-]+}")
set(position "\\[${entry},${entry},${entry}\\]")
expect_run("lm --json" 0 "^{\"ids\":\\[96,1,2\\],\"top\":\\[${position},${position},${position}\\],\"generated\":\\[[0-9]+,[0-9]+\\]}\n$" "^$"
           ${ATTNLAB} lm --model ${ck}/gpt2-f32.safetensors --config ${ck}/gpt2-f32.config.json --ids 96,1,2 --top 3
           --tokens 2 --json)
expect_run("lm, text, nanoGPT BF16, heads by flag" 0 "nanogpt \\(Linear\\), BF16.*greedy: \\[[0-9]+\\]\n$" "^$"
           ${ATTNLAB} lm --model ${ck}/nanogpt-bf16.safetensors --heads 4 --ids 5,17 --tokens 1)
expect_run("lm without n_head" 2 "^$" "n_head: not in the config"
           ${ATTNLAB} lm --model ${ck}/nanogpt-f16.safetensors --ids 5)
expect_run("lm, id beyond the vocabulary" 2 "^$" "--ids\\[1\\]: expected 0–96"
           ${ATTNLAB} lm --model ${ck}/gpt2-f32.safetensors --heads 4 --ids 5,97)
expect_run("lm, past the context" 2 "^$" "expected at most 16 tokens together"
           ${ATTNLAB} lm --model ${ck}/gpt2-f32.safetensors --heads 4 --ids 1,2,3,4,5,6,7,8,9,10 --tokens 7)
expect_run("lm, not a checkpoint" 2 "^$" "safetensors: header length"
           ${ATTNLAB} lm --model ${ck}/gpt2-f32.config.json --ids 5)
expect_run("lm, the asset too" 0 "^model: 4 layers, 4 heads, d_model 128" "^$"
           ${ATTNLAB} lm --model ${MODEL} --ids 1,2)
# --save (issue 28): the asset as GPT-2 safetensors + FILE.config.json, which `lm` reads back to the
# same numbers, bit for bit (the asset's weights, dequantised, are what the file holds).
set(saved ${SCRATCH}/cli-lm-save)
expect_run("lm --save" 0 "^saved [^\n]*/cli-lm-save.safetensors and [^\n]*/cli-lm-save.config.json\n$" "^$"
           ${ATTNLAB} lm --model ${MODEL} --save ${saved}.safetensors)
execute_process(COMMAND ${ATTNLAB} lm --model ${MODEL} --ids 1,2,3,9 --top 4 --tokens 3 --json OUTPUT_VARIABLE from_asset)
execute_process(COMMAND ${ATTNLAB} lm --model ${saved}.safetensors --config ${saved}.config.json --ids 1,2,3,9 --top 4
                        --tokens 3 --json OUTPUT_VARIABLE from_saved)
if(NOT from_asset STREQUAL from_saved OR from_asset STREQUAL "")
  message(FATAL_ERROR "lm --save: the saved model's numbers differ from the asset's:\n${from_asset}${from_saved}")
endif()
expect_run("lm --save where nothing can be written" 2 "^$" "^attnlab lm: invalid_argument: --save: cannot write '"
           ${ATTNLAB} lm --model ${MODEL} --save ${SCRATCH}/no-such-directory/m.safetensors)
expect_run("lm without --ids or --save" 2 "^$" "--ids: required \\(text, or token ids separated by commas\\) unless --save is given"
           ${ATTNLAB} lm --model ${MODEL})

# --prompt. GPT-2's vocabulary (gpt2-vocab-bf16: 50,257 ids, no attnlab words; the archive holds a
# 400 KB file in 1 KB, tests/data/checkpoints/gpt2-vocab.py): the text through GPT-2's BPE gives the
# ids js-tiktoken gives ("Hello world, \"the\" €." → 15496 995 11 366 1169 1 10432 13), tokens are
# their text in JSON (a cut character's byte, id 158, as U+FFFD) and their display form in text.
file(ARCHIVE_EXTRACT INPUT ${ck}/gpt2-vocab-bf16.tar.gz DESTINATION ${SCRATCH}/lm_prompt)
set(gpt2 --model ${SCRATCH}/lm_prompt/gpt2-vocab-bf16.safetensors --config ${ck}/gpt2-vocab-bf16.config.json)
# (No groups: CMake's expressions allow few; these tokens hold no brace.)
set(entry "{\"id\":[0-9]+,\"token\":\"[^{}]*\",\"p\":[0-9.e-]+}")
set(position "\\[${entry},${entry}\\]")
expect_run("lm --prompt, GPT-2's BPE, --json" 0
           "^{\"ids\":\\[15496,995,11,366,1169,1,10432,13\\],\"top\":\\[${position},${position},${position},${position},${position},${position},${position},${position}\\],\"generated\":\\[\\]}\n$" "^$"
           ${ATTNLAB} lm ${gpt2} --prompt "Hello world, \"the\" €." --top 2 --json)
expect_run("lm --prompt, the tokens' text in JSON" 0
           "^{\"ids\":\\[15496,995\\],\"top\":\\[\\[{\"id\":15496,\"token\":\"Hello\",[^}]+},{\"id\":158,\"token\":\"\\\\ufffd\",[^}]+}\\],\\[{\"id\":995,\"token\":\" world\",[^}]+},{\"id\":628,\"token\":\"\\\\n\\\\n\"" "^$"
           ${ATTNLAB} lm ${gpt2} --prompt "Hello world" --top 2 --json)
expect_run("lm --prompt, display form in text" 0
           "GPT-2's BPE \\(a space shown as ␣\\)\n   0 Hello +->  Hello [0-9.]+  \\\\xE2 [0-9.]+\n   1 ␣world +->  ␣world [0-9.]+  \\\\n\\\\n [0-9.]+\n$" "^$"
           ${ATTNLAB} lm ${gpt2} --prompt "Hello world" --top 2)
expect_run("lm --prompt, past the context" 2 "^$" "out_of_range: --prompt and --tokens: expected at most 32 tokens together \\(the context\\), got 30 \\+ 3"
           ${ATTNLAB} lm ${gpt2} --prompt "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a" --tokens 3)
# attnlab's models: the prompt's words, as `attnlab generate` reads them ("The" is "the").
execute_process(COMMAND ${ATTNLAB} generate --prompt "the jury said" --tokens 1 --model ${MODEL} --json OUTPUT_VARIABLE words)
expect_run("lm --prompt, attnlab's words" 0 "^{\"ids\":\\[[0-9]+,[0-9]+,[0-9]+\\],\"top\":\\[\\[{\"id\":[0-9]+,\"token\":\"[^\"]+\"" "^$"
           ${ATTNLAB} lm --model ${MODEL} --prompt "The jury said" --top 1 --json)
execute_process(COMMAND ${ATTNLAB} lm --model ${MODEL} --prompt "The jury said" --top 1 --json OUTPUT_VARIABLE by_prompt)
string(REGEX MATCH "\"ids\":\\[[0-9,]+\\]" prompt_ids "${by_prompt}")
string(REGEX REPLACE "^\"ids\":\\[|\\]$" "" prompt_ids "${prompt_ids}")
execute_process(COMMAND ${ATTNLAB} lm --model ${MODEL} --ids ${prompt_ids} --top 1 --json OUTPUT_VARIABLE by_ids)
if(NOT by_prompt STREQUAL by_ids OR NOT words MATCHES "^{\"prompt\":\\[\"the\",\"jury\",\"said\"\\]")
  message(FATAL_ERROR "lm --prompt is not --ids of generate's words:\n${words}${by_prompt}${by_ids}")
endif()
expect_run("lm --prompt on ids without words" 2 "^$"
           "invalid_argument: --prompt: the model's 97 ids have no words \\(GPT-2's BPE needs 50257\\): pass --ids"
           ${ATTNLAB} lm --model ${ck}/gpt2-f32.safetensors --heads 4 --prompt "the")
expect_run("lm, both --prompt and --ids" 2 "^$" "invalid_argument: --prompt and --ids: expected one of them, got both"
           ${ATTNLAB} lm ${gpt2} --prompt "the" --ids 1)
expect_run("lm, neither --prompt nor --ids" 2 "^$" "invalid_argument: --prompt or --ids: required"
           ${ATTNLAB} lm ${gpt2})
expect_run("lm, a prompt of nothing" 2 "^$" "invalid_argument: --prompt: expected at least one token"
           ${ATTNLAB} lm --model ${MODEL} --prompt "  ")
endif()
