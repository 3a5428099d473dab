# `attnlab train`'s contract: one JSON line per logged step (with the held-out loss, each head's
# prefix-matching and copying scores, every pair's composition), then a final line with the held-out
# accuracy, each head's measured role and scores, and the phase change (the README's example, where
# two layers form an induction circuit, has one); the README's example reaches held-out accuracy ≥ 0.9;
# a bad flag gives a clear message and exit code 2.
# --save writes the model and FILE.config.json beside it (docs/pytorch.md), and a path that cannot
# be written exits 2 before training.
#   cmake -DATTNLAB=path/to/attnlab -DSCRATCH=dir [-DQUICK=1] -P cli_train_test.cmake   (QUICK: not the 3000 steps)
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

if(NOT QUICK)
expect_run("the README's example: recall, 2 layers, 2 heads, 3000 steps, seed 1" 0
           "^{\"step\":100,\"loss\":[0-9.e+-]+,\"accuracy\":[0-9.e+-]+,\"held_out_loss\":[0-9.e+-]+,\"heads\":\\[{\"layer\":1,\"head\":1,\"prefix_matching\":[0-9.e-]+,\"copying\":[0-9.e-]+},[^\n]*\\],\"compositions\":\\[{\"from\":\"1.1\",\"to\":\"2.1\",\"q\":[0-9.e-]+,\"k\":[0-9.e-]+,\"v\":[0-9.e-]+},[^\n]*\\]}\n.*{\"step\":3000,[^\n]*}\n{\"final\":true,\"steps\":3000,\"held_out\":{\"loss\":[0-9.e+-]+,\"accuracy\":(1|0\\.9[0-9]*),\"positions\":512},\"steps_per_second\":[0-9.]+,\"heads\":\\[{\"layer\":1,\"head\":1,\"role\":\"[^\"]+\",\"share\":[0-9.]+,\"text\":\"head 1.1 [^\"]+\",\"prefix_matching\":[0-9.e-]+,\"copying\":[0-9.e-]+},.*{\"layer\":2,\"head\":2,[^\n]*}\\],\"compositions\":\\[[^\n]*\\],\"phase_change_step\":[3-6]00}\n$"
           "^$" ${ATTNLAB} train --task recall --layers 2 --heads 2 --steps 3000 --seed 1 --json)
endif()
expect_run("text output" 0 "^step +10  loss [0-9.]+  accuracy [0-9.]+\nheld-out: loss [0-9.]+, accuracy [0-9.]+ over [0-9]+ positions; [0-9]+ steps/s\nhead 1.1 "
           "^$" ${ATTNLAB} train --task copy --layers 1 --heads 1 --steps 10 --log-every 10)
expect_run("an unknown task" 2 "^$" "^attnlab train: unknown_option: --task: expected previous, copy, reverse, sort, recall, plusminus, got 'juggle'\nsee attnlab help train\n$"
           ${ATTNLAB} train --task juggle)
expect_run("no task" 2 "^$" "^attnlab train: invalid_argument: --task: missing" ${ATTNLAB} train --steps 5)
expect_run("heads out of range" 2 "^$" "^attnlab train: out_of_range: --heads: expected 1–8, got '9'\n" ${ATTNLAB} train --task copy --heads 9)
expect_run("heads that do not divide the width" 2 "^$" "^attnlab train: shape_mismatch: --dim 32: expected a multiple of --heads 3\n"
           ${ATTNLAB} train --task copy --heads 3)
expect_run("a value missing" 2 "^$" "^attnlab train: invalid_argument: --steps: missing value\n" ${ATTNLAB} train --task copy --steps)
expect_run("an unknown flag" 2 "^$" "^attnlab train: unknown_option: unknown flag '--bogus'\n" ${ATTNLAB} train --task copy --bogus 1)
expect_run("a bad learning rate" 2 "^$" "^attnlab train: invalid_argument: --lr: expected" ${ATTNLAB} train --task copy --lr nan)
expect_run("bad positions" 2 "^$" "^attnlab train: unknown_option: --positions: expected none, learned, sinusoidal or rope, got 'alibi'\n"
           ${ATTNLAB} train --task copy --positions alibi)
expect_run("a bad optimizer" 2 "^$" "^attnlab train: unknown_option: --optimizer: expected adam or sgd, got 'rmsprop'\nsee attnlab help train\n$"
           ${ATTNLAB} train --task copy --optimizer rmsprop)

# Issue 26 (each failed before: "unknown flag '--steps'", no code prefix, "d_model must be a multiple
# of heads (…), or head_dim set", and a run that allocated 2–4 GB before it failed).
expect_run("a flag given twice" 2 "^$" "^attnlab train: invalid_argument: --steps: given twice \\('2' and '3'\\)\nsee attnlab help train\n$"
           ${ATTNLAB} train --task copy --steps 2 --steps 3)
expect_run("a switch given twice" 2 "^$" "^attnlab train: invalid_argument: --json: given twice\n" ${ATTNLAB} train --task copy --json --json)
expect_run("a fraction for an integer flag" 2 "^$" "^attnlab train: invalid_argument: --dim: expected 1–512, got '2.5'\n"
           ${ATTNLAB} train --task copy --dim 2.5)
expect_run("a width the heads do not divide, in flags" 2 "^$"
           "^attnlab train: shape_mismatch: --dim 7: expected a multiple of --heads 2\nsee attnlab help train\n$"
           ${ATTNLAB} train --task copy --dim 7 --heads 2)
expect_run("training over the memory limit is refused before it starts, naming the flags" 2 "^$"
           "^attnlab train: resource_exhausted: --dim 512, --heads 2, --layers 3, --batch 1024: training needs an estimated [0-9.]+ GB, over the limit of [0-9.]+ GB \\(a smaller --dim or --batch\\)\nsee attnlab help train\n$"
           ${ATTNLAB} train --task previous --dim 512 --layers 3 --batch 1024 --mlp --steps 1)

# Issue 28: --save.
set(saved ${SCRATCH}/cli-train-save)
file(REMOVE ${saved}.safetensors ${saved}.config.json)
expect_run("--save, text" 0 "\nsaved [^\n]*/cli-train-save.safetensors and [^\n]*/cli-train-save.config.json\n$" "^$"
           ${ATTNLAB} train --task copy --layers 1 --heads 1 --steps 5 --save ${saved}.safetensors)
file(READ ${saved}.config.json config)
file(SIZE ${saved}.safetensors size)
if(NOT config MATCHES "\"model_type\": \"attnlab-learn\",\n  \"task\": \"copy\"" OR size LESS 1000)
  message(FATAL_ERROR "--save: ${saved}.safetensors (${size} bytes) and its config:\n${config}")
endif()
expect_run("--save, JSON: the final line names both files" 0
           ",\"saved\":{\"safetensors\":\"[^\"]*/cli-train-save.safetensors\",\"config\":\"[^\"]*/cli-train-save.config.json\"}}\n$" "^$"
           ${ATTNLAB} train --task copy --layers 1 --heads 1 --steps 5 --json --save ${saved}.safetensors)
expect_run("--save, a name without .safetensors: the config's name appends" 0 "and [^\n]*/cli-train-save.bin.config.json\n$" "^$"
           ${ATTNLAB} train --task copy --layers 1 --heads 1 --steps 1 --save ${saved}.bin)
expect_run("--save where nothing can be written: exit 2 before training" 2 "^$"
           "^attnlab train: invalid_argument: --save: cannot write '[^']*' \\([^)]+\\)\nsee attnlab help train\n$"
           ${ATTNLAB} train --task copy --steps 100000 --save ${SCRATCH}/no-such-directory/m.safetensors)
