# `attnlab train`'s contract: one JSON line per logged step, then a final line with the held-out
# accuracy and each head's measured role; the README's example reaches held-out accuracy ≥ 0.9;
# a bad flag gives a clear message and exit code 2.
#   cmake -DATTNLAB=path/to/attnlab [-DQUICK=1] -P cli_train_test.cmake   (QUICK: not the 3000 steps)
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect_run.cmake)

if(NOT QUICK)
expect_run("the README's example: recall, 2 layers, 2 heads, 3000 steps, seed 1" 0
           "^{\"step\":100,\"loss\":[0-9.e+-]+,\"accuracy\":[0-9.e+-]+}\n.*{\"step\":3000,[^\n]*}\n{\"final\":true,\"steps\":3000,\"held_out\":{\"loss\":[0-9.e+-]+,\"accuracy\":(1|0\\.9[0-9]*),\"positions\":512},\"steps_per_second\":[0-9.]+,\"heads\":\\[{\"layer\":1,\"head\":1,\"role\":\"[^\"]+\",\"share\":[0-9.]+,\"text\":\"head 1.1 [^\"]+\"},.*{\"layer\":2,\"head\":2,[^\n]*}\\]}\n$"
           "^$" ${ATTNLAB} train --task recall --layers 2 --heads 2 --steps 3000 --seed 1 --json)
endif()
expect_run("text output" 0 "^step +10  loss [0-9.]+  accuracy [0-9.]+\nheld-out: loss [0-9.]+, accuracy [0-9.]+ over [0-9]+ positions; [0-9]+ steps/s\nhead 1.1 "
           "^$" ${ATTNLAB} train --task copy --layers 1 --heads 1 --steps 10 --log-every 10)
expect_run("an unknown task" 2 "^$" "^attnlab train: task: expected previous, copy, reverse, sort, recall, plusminus, got 'juggle'\nsee attnlab help train\n$"
           ${ATTNLAB} train --task juggle)
expect_run("no task" 2 "^$" "^attnlab train: --task: missing" ${ATTNLAB} train --steps 5)
expect_run("heads out of range" 2 "^$" "^attnlab train: --heads: expected 1–8, got '9'\n" ${ATTNLAB} train --task copy --heads 9)
expect_run("heads that do not divide the width" 2 "^$" "^attnlab train: transformer: d_model must be a multiple of heads"
           ${ATTNLAB} train --task copy --heads 3)
expect_run("a value missing" 2 "^$" "^attnlab train: --steps: missing value\n" ${ATTNLAB} train --task copy --steps)
expect_run("an unknown flag" 2 "^$" "^attnlab train: unknown flag '--bogus'\n" ${ATTNLAB} train --task copy --bogus 1)
expect_run("a bad learning rate" 2 "^$" "^attnlab train: --lr: expected" ${ATTNLAB} train --task copy --lr nan)
expect_run("bad positions" 2 "^$" "^attnlab train: --positions: expected none, learned, sinusoidal or rope, got 'alibi'\n"
           ${ATTNLAB} train --task copy --positions alibi)
expect_run("a bad optimizer" 2 "^$" "^attnlab train: --optimizer: expected adam or sgd, got 'rmsprop'\nsee attnlab help train\n$"
           ${ATTNLAB} train --task copy --optimizer rmsprop)
