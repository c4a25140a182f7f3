#!/bin/sh
# test_ch00_program.sh — build/chapter0: the narrated tour of shape, strides,
# view, transpose and contiguous; --quiet, --help, the split sizes from the
# flags, and the usage errors (exit 2, one line on stderr).
# The strides expected here are the ones PyTorch reports for the same calls
# (x.stride(); see scripts/golden/ch00.py for the fixtures of the C test).
. tests/lib.sh
suite test_ch00_program

P=$BUILD/chapter0

# ---- the narrated default run ------------------------------------------------------
run "$P"
expect_status 0 "default run"
if [ -s "$TMP/err" ]; then _bad "default run: stderr is not empty"; else _ok; fi
expect_out_contains "PyTorch: x = torch.arange(6.).view(2, 3)" "starts from arange(6).view(2, 3)"
expect_out_contains "x: shape (2, 3)  strides (3, 1)  offset 0  contiguous yes" "strides of x"
expect_out_contains "x storage: [0, 1, 2, 3, 4, 5]  (6 floats)" "shows the storage"
expect_out_contains "= 5, and holds 5." "x[1][2] is at storage position 5"
expect_out_contains "y shares x's storage: yes." "view shares the storage"
expect_out_contains "x = tensor([[  0., 100.,   2.]," "a write through the view shows in x"
expect_out_contains "t: shape (3, 2)  strides (1, 3)  offset 0  contiguous no" "transpose swaps the strides"
expect_out_contains "t is not contiguous: dim 0 has stride 1" "says which stride breaks contiguity"
expect_out_contains "RuntimeError: view size is not compatible with input tensor's size" "quotes PyTorch's view error"
expect_out_contains "here:    view: input (3, 2) with strides (1, 3) is not" "shows the caught error sentence"
expect_out_contains "c storage: [0, 3, 1, 4, 2, 5]  (6 floats)" "contiguous() copies in reading order"
expect_out_contains "c shares t's storage: no." "contiguous() makes new storage"
expect_out_contains "flat = tensor([0., 3., 1., 4., 2., 5.])" "view works after contiguous()"
expect_out_contains "wq.weight: shape (4, 3)  strides (3, 1)" "nn.Linear stores (d_out, d_in)"
expect_out_contains "wq.weight.T: shape (3, 4)  strides (1, 3)  offset 0  contiguous no" "W.T is a transposed view"
expect_out_contains "largest |wq(x) - (x @ W.T + b)| = 0" "nn.Linear is x @ W.T + b"
expect_out_contains "xq (view): shape (2, 3, 2, 2)  strides (12, 4, 2, 1)" "split: the view"
expect_out_contains "xq (transposed): shape (2, 2, 3, 2)  strides (12, 2, 4, 1)" "split: the transpose"
expect_out_contains "      offset 0  contiguous no" "a long layout line wraps under 80 columns"
expect_out_contains "output: shape (2, 3, 2, 2)  strides (12, 2, 6, 1)  offset 0  contiguous no" "merge: transposed output"
expect_out_contains "error: view: input (2, 3, 2, 2) with strides (12, 2, 6, 1) is not" "merge without contiguous() fails"
expect_out_contains "largest |output - xq| = 0" "split then merge is the identity"
expect_out_contains "mask: shape (1, 1, 3, 3)  strides (9, 9, 3, 1)" "the mask's strides"
expect_out_contains "mask = tensor([[[[  0., -inf, -inf]," "triu(full(-inf), diagonal=1)"
expect_out_contains "why:" "explains each step"

run "$P" --quiet
expect_status 0 "--quiet"
expect_out_lacks "PyTorch:" "--quiet has no narration"
expect_out_lacks "why:" "--quiet has no reasons"
expect_out_contains "xq.view(b, t, h, hd).transpose(1, 2) (2, 2, 3, 2) (12, 2, 4, 1)  no" "--quiet prints the layouts"
n=$(grep -c "^[a-z.]" "$TMP/out")
if [ "$n" -eq 14 ]; then _ok; else _bad "--quiet prints a header and 13 layout lines, got $n"; fi
run "$P"
expect_out_lacks "(2, 2, 3, 2) (12, 2, 4, 1)  no" "the narrated run does not repeat the layouts as a table"

run "$P" --help
expect_status 0 "--help"
for flag in "--seed N" "--batch B" "--seq-len T" "--d-in D" "--d-out D" "--heads H" "--quiet"; do
    expect_out_contains "$flag" "--help lists $flag"
done
expect_out_lacks "--dump" "--help does not list --dump"
expect_out_lacks "--q FILE" "--help does not list --q"

# ---- the split follows the flags: (bsz, n_heads, seqlen, head_dim) --------------------
# PyTorch: torch.zeros(3, 5, 8).view(3, 5, 4, 2).transpose(1, 2).stride() == (40, 2, 8, 1)
run "$P" --batch 3 --seq-len 5 --d-out 8 --heads 4 --quiet
expect_status 0 "--batch 3 --seq-len 5 --d-out 8 --heads 4"
expect_out_contains "(3, 4, 5, 2) (40, 2, 8, 1)" "4 heads of head_dim 2"
expect_out_contains "(1, 1, 5, 5)" "the mask follows --seq-len"
# one head: the transposed view is still contiguous (size-1 dims do not count)
run "$P" --heads 1 --seq-len 1 --quiet
expect_status 0 "--heads 1 --seq-len 1"
expect_out_contains "xq.view(b, t, h, hd).transpose(1, 2) (2, 1, 1, 4) (4, 4, 4, 1)   yes" "size-1 dims keep it contiguous"
# the seed runs the same numbers
run "$P" --quiet --seed 9
cp "$TMP/out" "$TMP/a"
run "$P" --quiet --seed 9
if cmp -s "$TMP/out" "$TMP/a"; then _ok; else _bad "the same --seed gives the same run"; fi

# ---- usage errors -------------------------------------------------------------------------------
run "$P" --d-out 4 --heads 3
expect_usage_error "--heads 3: d_out 4 is not divisible by n_heads 3" "d_out % n_heads != 0"
run "$P" --heads 0
expect_usage_error "--heads" "--heads 0"
run "$P" --dump "$TMP/d"
expect_usage_error "--dump" "--dump does not apply"
if [ -e "$TMP/d" ]; then _bad "--dump (refused) made no folder"; else _ok; fi
run "$P" --q x.npy
expect_usage_error "--q" "--q does not apply"
run "$P" extra
expect_usage_error "extra" "a positional argument"
# past the memory budget: the sentence names what this chapter holds (no scores here) and what to lower
ATTN_MAX_BYTES=100M
export ATTN_MAX_BYTES
run "$P" --batch 50 --seq-len 100 --d-out 1000 --quiet
expect_runtime_error "(the (bsz, seqlen, d) activations, bsz = 50, seqlen = 100), more than the budget of 100.0 MiB" \
    "activations past the budget"
expect_err_contains "lower --batch, --seq-len, --d-in or --d-out, or raise ATTN_MAX_BYTES" \
    "activations past the budget: what to lower"
run "$P" --batch 50 --seq-len 100 --d-out 1000 --quiet --lang zh
expect_runtime_error "（(bsz, seqlen, d) 的激活值，bsz = 50，seqlen = 100）" "activations past the budget, in Chinese"
expect_err_contains "请调小 --batch、--seq-len、--d-in 或 --d-out，或调大 ATTN_MAX_BYTES" \
    "what to lower, in Chinese"
run "$P" --seq-len 3000 --quiet
expect_runtime_error "(the seqlen x seqlen mask buffers, seqlen = 3000)" "the mask past the budget"
expect_err_contains "lower --seq-len, or raise" "the mask past the budget: what to lower"
unset ATTN_MAX_BYTES
# too big for memory: a runtime error, one line
run "$P" --batch 1000000 --seq-len 1000000 --quiet
expect_runtime_error "ATTN_MAX_BYTES" "sizes too big for memory"

finish
