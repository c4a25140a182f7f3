# attention-in-c — one entry point. `make help` lists the targets.
#
# Pattern rules only: a new chapter is a new folder chapters/NN_name/ with a
# main.c (the narrated program, built as build/chapterN) and concept code
# (*.c beside it, linked into build/libattn.a so later chapters can call it);
# its tests are tests/test_chNN.c.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
STRICT  := -std=c99 -Wall -Wextra -Wpedantic -Werror -Wvla
CPPFLAGS += -I.
LDLIBS  += -lm
EXTRA_CFLAGS  ?=
EXTRA_LDFLAGS ?=
ALL_CFLAGS = $(STRICT) $(OPT) $(EXTRA_CFLAGS) $(CFLAGS)
# Chapter 8 is about speed: it alone may use -O3 -march=native (never -ffast-math:
# the -inf mask needs IEEE semantics). On Intel CPUs with AVX-512, gcc's -march=native
# still prefers 256-bit vectors; -mprefer-vector-width=512 lets the kernels use the
# full width (chapter 8's README, "The build"). On other CPUs it changes nothing.
FAST_OPT ?= -O3 -march=native -mprefer-vector-width=512 -g
# make OMP=1: chapter 8's flash attention spreads (batch, head, query block) over threads
# with OpenMP. The default build stays plain C99 on one thread.
ifneq ($(OMP),)
FAST_OPT += -fopenmp
LDLIBS += -fopenmp
endif

# Optional: PYTHON=/path/to/python for the scripts/ targets.
PYTHON ?=
export PYTHON
# Wrapper for running test programs (make memcheck sets valgrind).
RUNNER ?=
export RUNNER

# common/ is the torch (tensor, ops, nn, rng, npy, ...); common/program/ is what
# makes a chapter a program (flags, narration, heatmaps, budgets, output files),
# its own library, which concept code never includes.
COMMON_SRC   := $(sort $(wildcard common/*.c))
PROGRAM_SRC  := $(sort $(wildcard common/program/*.c))
CHAPTER_DIRS := $(sort $(patsubst %/main.c,%,$(wildcard chapters/[0-9][0-9]_*/main.c)))
# Chapter 9 runs on MPI: its files that call MPI (*_mpi.c, and the main.c beside
# them) are compiled with $(MPICC), never put into build/libattn.a, and built only
# when $(MPICC) is found; the chapter's MPI-free concept code is in the library.
MPICC   ?= mpicc
MPIRUN  ?= mpirun
NP      ?= 2
MPI_SRC  := $(sort $(wildcard chapters/*/*_mpi.c))
MPI_DIRS := $(sort $(patsubst %/,%,$(dir $(MPI_SRC))))
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo yes)
CHAPTER_LIB_SRC := $(sort $(filter-out %/main.c %_mpi.c,$(wildcard chapters/*/*.c)))
LIB_SRC  := $(COMMON_SRC) $(PROGRAM_SRC) $(CHAPTER_LIB_SRC)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/obj/%.o)
PROGRAM_OBJ := $(PROGRAM_SRC:%.c=$(BUILD)/obj/%.o)
COMMON_LIB  := $(BUILD)/lib/libcommon.a
PROGRAM_LIB := $(BUILD)/lib/libprogram.a
CHAPTER_LIB_OBJ := $(CHAPTER_LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/libattn.a
HARNESS  := $(BUILD)/obj/tests/harness.o

TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TEST_BINS := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# tests/test_plots.sh needs matplotlib: it runs in make test-plots, never in make test.
TEST_SH   := $(filter-out tests/test_plots.sh,$(sort $(wildcard tests/test_*.sh)))
COMMON_TEST_BINS := $(filter $(BUILD)/tests/test_common%,$(TEST_BINS))
TOOLS     := $(BUILD)/npyinfo $(BUILD)/randnpy
# make similarity's text comparison (scripts/exercises/similarity.c, C99, reads text only;
# the teacher's side: not in a handed-out tree)
ifneq ($(wildcard scripts/exercises/similarity.c),)
TOOLS     += $(BUILD)/similarity
endif

# chapter number of a folder: chapters/04_causal_mask -> 4
chapter_num = $(patsubst 0%,%,$(firstword $(subst _, ,$(notdir $(1)))))
chapter_nn  = $(firstword $(subst _, ,$(notdir $(1))))
PLAIN_DIRS   := $(filter-out $(MPI_DIRS),$(CHAPTER_DIRS))
CHAPTER_BINS := $(foreach d,$(PLAIN_DIRS),$(BUILD)/chapter$(call chapter_num,$(d)))
MPI_BINS     := $(foreach d,$(MPI_DIRS),$(BUILD)/chapter$(call chapter_num,$(d)))
ifeq ($(HAVE_MPI),yes)
CHAPTER_BINS += $(MPI_BINS)
endif

.PHONY: all test test-common sanitize memcheck fuzz golden plots test-plots help clean
.DEFAULT_GOAL := all
# Keep intermediate objects: no "rm build/obj/..." after the closing line of make test.
.SECONDARY:

all: $(LIB) $(CHAPTER_BINS) $(TOOLS) $(TEST_BINS)

# Rebuild everything when the compiler or flags change (make CC=clang test).
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_LINE  := $(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) $(FAST_OPT) $(MPICC)
$(shell mkdir -p $(BUILD) && (echo '$(FLAGS_LINE)' | cmp -s - $(FLAGS_STAMP) || echo '$(FLAGS_LINE)' > $(FLAGS_STAMP)))

$(BUILD)/obj/chapters/08_%.o: chapters/08_%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRICT) $(FAST_OPT) $(EXTRA_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
# Chapter 8's tests once more with the AVX2 tile (6 x 16) when FAST_OPT targets AVX-512,
# as -march=native does here: fast_attention.c built again with -mno-avx512f (AVX2 and
# FMA stay) and linked before the library's copy; tests/test_ch08_tiles.sh runs it. (The
# NEON tile runs in make test-arm64, the portable one in make memcheck, FAST_OPT -O1.)
CH08_AVX512 := $(shell $(CC) $(FAST_OPT) -dM -E -x c /dev/null 2>/dev/null | grep -c __AVX512F__)
ifneq ($(filter-out 0,$(CH08_AVX512)),)
CH08_AVX2_TEST := $(BUILD)/tests/test_ch08_avx2
all: $(CH08_AVX2_TEST)
test-chapter8: $(CH08_AVX2_TEST)
$(BUILD)/obj/avx2/fast_attention.o: chapters/08_fast_attention/fast_attention.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRICT) $(FAST_OPT) -mno-avx512f $(EXTRA_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/avx2/test_ch08.o: tests/test_ch08.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -DCH08_TILE_AVX2 -MMD -MP -c $< -o $@
$(CH08_AVX2_TEST): $(BUILD)/obj/avx2/test_ch08.o $(BUILD)/obj/avx2/fast_attention.o $(HARNESS) \
                   $(BUILD)/lib/libch08.a $(PROGRAM_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)
endif
# Chapter 11's decode step (the cache's attention, the blocked projections) is built as
# chapter 8 is: it is the part of chapter 11 that is about speed.
CH11_FAST := kv_cache fast_decode
$(foreach f,$(CH11_FAST),$(BUILD)/obj/chapters/11_llama_attention/$(f).o): \
$(BUILD)/obj/chapters/11_%.o: chapters/11_%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRICT) $(FAST_OPT) $(EXTRA_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
# Chapter 13's row kernels (the loss's softmax, the SwiGLU's sigmoid, RoPE, AdamW's update)
# likewise: the part of its training step that is about speed. -fno-math-errno: sqrt never
# writes errno there (its argument is never negative), so AdamW's loop can vectorise.
CH13_FAST := fast_train
$(foreach f,$(CH13_FAST),$(BUILD)/obj/chapters/13_tiny_llama/$(f).o): \
$(BUILD)/obj/chapters/13_%.o: chapters/13_%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRICT) $(FAST_OPT) -fno-math-errno $(EXTRA_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# (after the rules above: GNU Make 3.81 takes the first pattern rule that matches,
# 3.82 and later the one with the shortest stem; in this order both take the same)
$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# make bench: chapter 8's versions timed over T (prints; writes $(BUILD)/bench/attention.csv).
# BENCH_QUICK=1 for a short subset; BENCH_MAX_SECONDS caps one table cell (default 60).
# make bench-torch: PyTorch and every C version in ONE process, round by round
# (scripts/bench_torch.py loads the C versions from $(BUILD)/libattn_bench.so,
# built once more with -fPIC and OpenMP); writes $(BUILD)/bench/torch.csv and .txt.
BENCH_BIN := $(BUILD)/bench_attention
$(BENCH_BIN): $(BUILD)/obj/chapters/08_fast_attention/bench/bench_attention.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)
BENCH_SO  := $(BUILD)/libattn_bench.so
# (chapter 12's flash backward is in LIB_SRC; its bench entry points beside it)
PIC_OBJ   := $(LIB_SRC:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/chapters/08_fast_attention/bench/bench_lib.o \
             $(BUILD)/pic/chapters/12_flash_backward/bench/bench_lib.o \
             $(BUILD)/pic/chapters/11_llama_attention/bench/bench_lib.o
$(BUILD)/pic/chapters/08_%.o: chapters/08_%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRICT) $(FAST_OPT) -fopenmp $(EXTRA_CFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(foreach f,$(CH11_FAST),$(BUILD)/pic/chapters/11_llama_attention/$(f).o) \
$(BUILD)/pic/chapters/11_llama_attention/bench/bench_lib.o: \
$(BUILD)/pic/chapters/11_%.o: chapters/11_%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(STRICT) $(FAST_OPT) $(EXTRA_CFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(BUILD)/pic/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(BENCH_SO): $(PIC_OBJ)
	$(CC) -shared -fopenmp $(EXTRA_LDFLAGS) -o $@ $^ -lm
.PHONY: bench bench-torch
bench: $(BENCH_BIN) $(BUILD)/chapter8
	@mkdir -p $(BUILD)/bench
	@./$(BENCH_BIN) --chapter8 $(BUILD)/chapter8 --csv $(BUILD)/bench/attention.csv
# make bench-chapter11: chapter 11's KV cache timed in one run (a cached step against
# recomputing the prefix, GQA against MHA, the step against a triad's bandwidth), then
# its decode step (fast_decode.c) against PyTorch decode loops (repeat_kv as the book,
# and GQA by indexing) in ONE process, one thread, at 64, 512 and 4096 tokens, with the
# share of a triad's bandwidth (scripts/bench_ch11.py, numpy and torch; the kernel-set
# race of bench-torch). BENCH_QUICK=1: 64 and 512 tokens. Writes $(BUILD)/bench/ch11_torch.txt.
.PHONY: bench-chapter11
bench-chapter11: $(BUILD)/chapter11 $(BENCH_SO)
	@mkdir -p $(BUILD)/bench
	@./$(BUILD)/chapter11 --bench
	@echo
	@PY=$$(sh scripts/find_python.sh torch numpy) && \
	  BENCH_KEEP_OPENBLAS_ENV='$(BENCH_KEEP_OPENBLAS_ENV)' \
	  $$PY scripts/bench_ch11.py --lib $(BENCH_SO) --csv $(BUILD)/bench/ch11_torch.csv \
	    --log $(BUILD)/bench/ch11_torch.txt

# make bench-chapter13: chapter 13's training step and greedy decode against PyTorch on the
# same model (the default configuration, written as a .bin) and batch, one thread, rounds
# alternating C and PyTorch (scripts/bench_ch13.py, numpy and torch). BENCH_QUICK=1: one
# round of 3 steps. Writes $(BUILD)/bench/ch13_torch.txt.
.PHONY: bench-chapter13
bench-chapter13: $(BUILD)/chapter13
	@mkdir -p $(BUILD)/bench
	@PY=$$(sh scripts/find_python.sh torch numpy) && \
	  $$PY scripts/bench_ch13.py --chapter13 $(BUILD)/chapter13 --log $(BUILD)/bench/ch13_torch.txt

# make bench-chapter9: chapter 9's ring over a 1 Gbit/s TCP link (a private network namespace's
# loopback, limited by tc tbf), overlapped and --no-overlap in interleaved
# rounds on 2 processes, the waits' medians and their ratio (scripts/bench_ring.sh);
# writes $(BUILD)/bench/ring.txt and ring.csv.
.PHONY: bench-chapter9
ifeq ($(HAVE_MPI),yes)
bench-chapter9: $(MPI_BINS)
	@sh scripts/bench_ring.sh $(BUILD)
else
bench-chapter9:
	@echo "make bench-chapter9 needs MPI: install the Debian packages openmpi-bin and libopenmpi-dev (or MPICH), then run make again" >&2; exit 1
endif
# make bench-chapter12: chapter 12's flash backward against chapter 8's forward and
# chapter 10's full-matrix backward, timed in one run (prints only).
.PHONY: bench-chapter12
bench-chapter12: $(BUILD)/chapter12
	@./$(BUILD)/chapter12 --bench --causal --d-k 64
# make bench-chapter12-torch: the flash backward against PyTorch's autograd backward of
# eager attention (and chapter 8's forward) in ONE process, one thread, interleaved
# rounds, at T = 1024 and 4096 (B = 1, H = 4, d = 64, causal and not), and the peak
# memory of each, a child process per case (scripts/bench_ch12.py, numpy and torch;
# the kernel-set race of bench-torch). BENCH_QUICK=1: T = 256 and 1024, H = 2, fewer
# rounds. Writes $(BUILD)/bench/ch12_torch.txt.
.PHONY: bench-chapter12-torch
bench-chapter12-torch: $(BENCH_SO)
	@mkdir -p $(BUILD)/bench
	@PY=$$(sh scripts/find_python.sh torch numpy) && \
	  BENCH_KEEP_OPENBLAS_ENV='$(BENCH_KEEP_OPENBLAS_ENV)' \
	  $$PY scripts/bench_ch12.py --lib $(BENCH_SO) --log $(BUILD)/bench/ch12_torch.txt
# The opponent at its best: the script races the OpenBLAS kernel sets this CPU runs
# (OPENBLAS_CORETYPE unset, Haswell, SkylakeX, Cooperlake: each in a child process,
# its sgemm timed and checked against float64) and runs numpy and torch on the
# fastest right one, for the bench alone (never for the tests; OPENBLAS_L2_SIZE
# unset). BENCH_KEEP_OPENBLAS_ENV=1: no race, OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
# as the environment has them. BENCH_QUICK=1: T = 256, 1024 and 4096, a shorter race.
BENCH_KEEP_OPENBLAS_ENV ?=
bench-torch: $(BENCH_SO) $(BUILD)/chapter8
	@mkdir -p $(BUILD)/bench
	@PY=$$(sh scripts/find_python.sh torch numpy) && \
	  BENCH_KEEP_OPENBLAS_ENV='$(BENCH_KEEP_OPENBLAS_ENV)' \
	  $$PY scripts/bench_torch.py --lib $(BENCH_SO) --chapter8 $(BUILD)/chapter8 \
	    --csv $(BUILD)/bench/torch.csv --log $(BUILD)/bench/torch.txt

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(HARNESS) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

$(COMMON_LIB): $(COMMON_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(PROGRAM_LIB): $(PROGRAM_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/npyinfo: $(BUILD)/obj/tests/npyinfo.o $(PROGRAM_LIB) $(COMMON_LIB)
	$(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

# (the tools link no chapter: make test-chapter1 builds nothing of chapter 6)
$(BUILD)/randnpy: $(BUILD)/obj/tests/randnpy.o $(PROGRAM_LIB) $(COMMON_LIB)
	$(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/similarity: $(BUILD)/obj/scripts/exercises/similarity.o
	$(CC) $(ALL_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS)

# Chapter N builds on chapters 0..N only, so its program and its tests link
# $(BUILD)/lib/libchNN.a (chapters 0..N), then the program library and the
# torch: one broken chapter does not stop the tests of an earlier one
# (make test-chapter1 with chapter 3 broken).
CHAPTERS_SO_FAR :=
BINS_SO_FAR :=
define CHAPTER_RULES
CHAPTERS_SO_FAR += $(1)
BINS_SO_FAR += $(BUILD)/chapter$(call chapter_num,$(1))
LIBOBJ_$(call chapter_nn,$(1)) := $$(filter $$(addprefix $(BUILD)/obj/,$$(addsuffix /%,$$(CHAPTERS_SO_FAR))),$(CHAPTER_LIB_OBJ))
$(BUILD)/lib/libch$(call chapter_nn,$(1)).a: $$(LIBOBJ_$(call chapter_nn,$(1)))
	@mkdir -p $$(@D)
	@rm -f $$@
	$$(AR) rcs $$@ $$^
$(BUILD)/chapter$(call chapter_num,$(1)): $(BUILD)/obj/$(1)/main.o $(BUILD)/lib/libch$(call chapter_nn,$(1)).a $(PROGRAM_LIB) $(COMMON_LIB)
	$$(CC) $$(ALL_CFLAGS) $$(EXTRA_LDFLAGS) -o $$@ $$^ $$(LDLIBS)
$(BUILD)/tests/test_ch$(call chapter_nn,$(1)): $(BUILD)/obj/tests/test_ch$(call chapter_nn,$(1)).o $(HARNESS) $(BUILD)/lib/libch$(call chapter_nn,$(1)).a $(PROGRAM_LIB) $(COMMON_LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) $$(EXTRA_LDFLAGS) -o $$@ $$^ $$(LDLIBS)
.PHONY: chapter$(call chapter_num,$(1)) test-chapter$(call chapter_num,$(1))
chapter$(call chapter_num,$(1)): $(BUILD)/chapter$(call chapter_num,$(1))
	./$(BUILD)/chapter$(call chapter_num,$(1)) $$(ARGS)
# (a chapter's tests may run the earlier chapters' programs: chapter 11 generates with
# the model chapter 10 trained)
test-chapter$(call chapter_num,$(1)): $$(filter $(BUILD)/tests/test_ch$(call chapter_nn,$(1)),$(TEST_BINS)) $$(BINS_SO_FAR) $(TOOLS)
	@BUILD=$(BUILD) sh tests/run_tests.sh $(BUILD)/tests/test_ch$(call chapter_nn,$(1)) $$(wildcard tests/test_ch$(call chapter_nn,$(1))_*.sh)
endef
$(foreach d,$(PLAIN_DIRS),$(eval $(call CHAPTER_RULES,$(d))))

# The MPI chapter: objects and program through $(MPICC), which runs $(CC) (OMPI_CC,
# MPICH_CC) so that make CC=clang and make sanitize build it like the rest.
# make chapter9 runs it on NP=2 processes; make test-chapter9 runs its tests, which
# count the MPI checks as skipped when mpirun is missing.
MPI_ENV := OMPI_CC='$(CC)' MPICH_CC='$(CC)'
MPI_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(MPI_SRC) $(MPI_DIRS:%=%/main.c))
$(MPI_OBJ): $(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(MPI_ENV) $(MPICC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@
# Open MPI: -q keeps an error to our one sentence (no mpirun banner), --oversubscribe
# allows more ranks than cores, --mca pml ob1 takes Open MPI's own message layer
# (shared memory between processes of one machine) without first trying the others
# (that made every start wait about 0.2 s here), and root needs --allow-run-as-root.
ifndef MPIRUN_FLAGS
MPIRUN_FLAGS := $(shell $(MPIRUN) --version 2>/dev/null | grep -q 'Open MPI' && echo '-q --oversubscribe --mca pml ob1' && [ "$$(id -u)" = 0 ] && echo --allow-run-as-root)
endif
export MPIRUN MPIRUN_FLAGS HAVE_MPI
define MPI_CHAPTER_RULES
$(BUILD)/chapter$(call chapter_num,$(1)): $(BUILD)/obj/$(1)/main.o $(patsubst %.c,$(BUILD)/obj/%.o,$(filter $(1)/%,$(MPI_SRC))) $(LIB)
	$$(MPI_ENV) $$(MPICC) $$(ALL_CFLAGS) $$(EXTRA_LDFLAGS) -o $$@ $$^ $$(LDLIBS)
.PHONY: chapter$(call chapter_num,$(1)) test-chapter$(call chapter_num,$(1))
ifeq ($(HAVE_MPI),yes)
chapter$(call chapter_num,$(1)): $(BUILD)/chapter$(call chapter_num,$(1))
	$$(MPIRUN) $$(MPIRUN_FLAGS) -np $$(NP) ./$(BUILD)/chapter$(call chapter_num,$(1)) $$(ARGS)
else
chapter$(call chapter_num,$(1)):
	@echo "make $$@ needs MPI: install the Debian packages openmpi-bin and libopenmpi-dev (or MPICH), then run make again" >&2; exit 1
endif
test-chapter$(call chapter_num,$(1)): all
	@BUILD=$(BUILD) sh tests/run_tests.sh $(BUILD)/tests/test_ch$(call chapter_nn,$(1)) $$(wildcard tests/test_ch$(call chapter_nn,$(1))_*.sh)
.PHONY: test-chapter$(call chapter_num,$(1))-full
test-chapter$(call chapter_num,$(1))-full: all
	@CH$(call chapter_nn,$(1))_FULL=1 BUILD=$(BUILD) sh tests/run_tests.sh $(BUILD)/tests/test_ch$(call chapter_nn,$(1)) $$(wildcard tests/test_ch$(call chapter_nn,$(1))_*.sh)
endef
$(foreach d,$(MPI_DIRS),$(eval $(call MPI_CHAPTER_RULES,$(d))))

# make test-chapter12-full: chapter 12's tests with CH12_FULL=1, which adds the whole
# process's peak resident memory at (1, 1, 65536, 64), causal (under 200 MiB; about 25 s
# of one core, so not part of make test).
.PHONY: test-chapter12-full
test-chapter12-full: $(BUILD)/tests/test_ch12 $(CHAPTER_BINS) $(TOOLS)
	@CH12_FULL=1 BUILD=$(BUILD) sh tests/run_tests.sh $(BUILD)/tests/test_ch12 $(wildcard tests/test_ch12_*.sh)

# make test: every C test binary and every tests/test_*.sh; last line "N passed, M failed".
# It builds with one job per CPU and runs TEST_JOBS tests at a time (default: one per
# CPU), the slowest first; the report keeps this order whatever finishes first.
NPROC     := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
# (in this order: $(filter) would keep the alphabetical order of TEST_SH)
TEST_SLOW := $(foreach t,test_grade_class.sh test_feedback.sh test_gradescope.sh test_prairielearn.sh test_grade_lms.sh test_grade_bugs.sh test_ch09_program.sh test_exercises.sh test_hostile.sh \
               test_docs.sh test_npyinfo.sh test_run_tests.sh test_ch08_program.sh test_ch10_program.sh test_ch13_program.sh,$(filter tests/$(t),$(TEST_SH)))
test:
	@$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC)) all
	@BUILD=$(BUILD) sh tests/run_tests.sh $(TEST_SLOW) $(filter-out $(TEST_SLOW),$(TEST_SH)) $(TEST_BINS)

# make test-docs: the docs' transcripts, PyTorch snippets and figures against the programs.
.PHONY: test-docs
test-docs: all
	@BUILD=$(BUILD) sh tests/run_tests.sh $(filter tests/test_docs.sh tests/test_figures.sh,$(TEST_SH))

test-common: all
	@BUILD=$(BUILD) sh tests/run_tests.sh $(COMMON_TEST_BINS) tests/test_npyinfo.sh

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
sanitize:
	@$(MAKE) --no-print-directory BUILD=build/sanitize OPT="-O1 -g" \
	  EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)" test

VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
memcheck:
	@command -v valgrind >/dev/null || { echo "memcheck needs valgrind: apt-get install valgrind" >&2; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build/memcheck OPT="-O1 -g" FAST_OPT="-O1 -g" RUNNER="$(VALGRIND)" test

# make fuzz: libFuzzer (clang) on the .npy loader and the flag parser.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -I.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz needs clang: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }
	@mkdir -p build/fuzz
	@set -e; for t in $(FUZZ_TARGETS); do \
	  name=$${t#fuzz_}; \
	  echo "fuzz: building $$t"; \
	  $(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/$$t.c $(COMMON_SRC) $(PROGRAM_SRC) -lm -o build/fuzz/$$t; \
	  mkdir -p build/fuzz/corpus-$$name; \
	  echo "fuzz: running $$t for $(FUZZ_SECONDS) s"; \
	  build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 \
	    -artifact_prefix=build/fuzz/$$t- build/fuzz/corpus-$$name tests/corpus/$$name 2>build/fuzz/$$t.log \
	    || { tail -n 30 build/fuzz/$$t.log; echo "fuzz: $$t found a crash (see build/fuzz/)"; exit 1; }; \
	  echo "fuzz: $$t ran $(FUZZ_SECONDS) s with no crash ($$(grep -c . build/fuzz/$$t.log) log lines)"; \
	done

golden:
	@PY=$$(sh scripts/find_python.sh torch numpy) && $$PY scripts/make_golden.py

# Classroom exercises (docs/TEACHING.md; scripts/exercises/, POSIX sh + awk).
# In a tree made by `make exercises` only `hint` works (hint.sh reads .exercise-manifest).
LEVEL    ?=
CHAPTERS ?=
DIR      ?=
BLANK    ?=
BUGS     ?=
STUDENT  ?=
ROSTER   ?=
SUBMISSIONS ?=
JOBS     ?=
TIER     ?=
EXERCISES_DIR ?= exercises
BUGS_DIR ?= bugs
EX_SCRIPTS := scripts/exercises
ex_need = @test -f $(EX_SCRIPTS)/blank.awk || { echo "make $@: run this in the attention-in-c repository, not in a generated tree" >&2; exit 2; }
.PHONY: exercises check-exercises grade grade-class gradescope-autograder prairielearn-kit hint bugs similarity grade-bugs

exercises:
	$(ex_need)
	@sh $(EX_SCRIPTS)/generate.sh '$(EXERCISES_DIR)' '$(LEVEL)' '$(CHAPTERS)'

check-exercises:
	$(ex_need)
	@MAKE='$(MAKE)' CC='$(CC)' sh $(EX_SCRIPTS)/check.sh

grade:
	$(ex_need)
	@MAKE='$(MAKE)' CC='$(CC)' BUILD='$(BUILD)' sh $(EX_SCRIPTS)/grade.sh '$(DIR)' '$(LEVEL)' '$(CHAPTERS)' '$(STUDENT)'

grade-class:
	$(ex_need)
	@MAKE='$(MAKE)' CC='$(CC)' BUILD='$(BUILD)' ROSTER='$(ROSTER)' sh $(EX_SCRIPTS)/grade_class.sh '$(SUBMISSIONS)' '$(LEVEL)' '$(CHAPTERS)' '$(JOBS)' '$(STUDENT)'

gradescope-autograder:
	$(ex_need)
	@sh $(EX_SCRIPTS)/gradescope.sh '$(LEVEL)' '$(CHAPTERS)'

prairielearn-kit:
	$(ex_need)
	@sh $(EX_SCRIPTS)/prairielearn.sh '$(LEVEL)' '$(CHAPTERS)'

hint:
	@if [ -f $(EX_SCRIPTS)/hint.sh ]; then sh $(EX_SCRIPTS)/hint.sh '$(BLANK)' '$(TIER)'; \
	else echo "make hint: no exercise blanks here" >&2; exit 1; fi

bugs:
	$(ex_need)
	@sh $(EX_SCRIPTS)/bugs.sh '$(BUGS_DIR)' '$(BUGS)'

# make similarity: the answers compared blank by blank as text (never run) -> similarity.csv
similarity: $(filter $(BUILD)/similarity,$(TOOLS))
	$(ex_need)
	@CC='$(CC)' BUILD='$(BUILD)' sh $(EX_SCRIPTS)/similarity.sh '$(SUBMISSIONS)' '$(LEVEL)' '$(CHAPTERS)'

# make grade-bugs: a bug hunt graded chapter by chapter -> bugs.csv
grade-bugs:
	$(ex_need)
	@MAKE='$(MAKE)' CC='$(CC)' BUILD='$(BUILD)' sh $(EX_SCRIPTS)/grade_bugs.sh '$(SUBMISSIONS)' '$(BUGS)'

# make plots: run the chapters with --dump and draw the figures into $(BUILD)/plots/
# (matplotlib + numpy: PYTHON=... or the first python3 that has them).
plots: all
	@BUILD=$(BUILD) sh scripts/plot_all.sh $(BUILD)/plots

# make figures: the same, drawn into docs/img/ with the data beside each PNG
# (NAME.txt; ch08_bench.csv, and bench-torch's printout ch08_bench.txt, when make bench-torch or make bench has run), for
# committing; tests/test_figures.sh checks the programs still dump that data.
.PHONY: figures
figures: all
	@BUILD=$(BUILD) PLOT_DUMP=$(BUILD)/plots/dump sh scripts/plot_all.sh docs/img

# make test-plots: each scripts/plot_*.py renders a non-empty, labelled PNG; skipped without matplotlib.
test-plots: all
	@BUILD=$(BUILD) sh tests/test_plots.sh

# ---- Other systems (common/platform.h) ------------------------------------------
# make test-windows (x86_64-w64-mingw32-gcc, run under wine), make test-arm64
# (aarch64-linux-gnu-gcc, run under qemu-aarch64), make test-musl (musl-gcc): the
# same sources built into build/windows, build/arm64, build/musl without
# -march=native, every C test and each chapter program's default run, --lang zh and
# --dump against this machine's (tests/cross.sh, tests/cross_programs.sh); chapter 9
# and the grader are Linux's, skipped by name. A missing compiler or emulator is one
# sentence naming its Debian package, and exit 1.
# make test-posix: a clean build with -D_POSIX_C_SOURCE=200809L and no
# _DEFAULT_SOURCE (nothing relies on glibc's extensions), and its C tests.
.PHONY: test-windows test-arm64 test-musl test-posix
test-windows test-arm64 test-musl: $(CHAPTER_BINS) $(TOOLS)
	@MAKE='$(MAKE)' sh tests/cross.sh $(@:test-%=%)
test-posix:
	@rm -rf build/posix
	@$(MAKE) -s --no-print-directory BUILD=build/posix HAVE_MPI= EXTRA_CFLAGS=-D_POSIX_C_SOURCE=200809L all
	@BUILD=build/posix sh tests/run_tests.sh $(filter-out %/test_ch09 %/test_similarity_winnow,$(TEST_BINS:$(BUILD)/%=build/posix/%))

# ---- WebAssembly: the page (scripts/web/) ----------------------------------------
# make web: chapters 0-8 and 10-13 built from the same sources for wasm32-wasi (clang,
# lld, wasi-libc: the Debian packages clang, lld, wasi-libc, libclang-rt-14-dev-wasm32,
# llvm) into build/wasm/, then the static page build/web/ (scripts/web/build.sh): the
# programs as .wasm, the page's HTML/JS/CSS, the chapters' C sources, and chapter 13's
# checkpoint trained here by the native program (WEB_TRAIN_STEPS steps: 1200, the default run's).
# make test-web: each .wasm under node against the native program, byte for byte
# (tests/test_web.sh, which make test runs too once build/web/ exists and was built from
# these sources: scripts/web/sources_sum.sh), then the page
# in headless Chromium (tests/web/, playwright-core from npm: npm ci there first).
# make bench-web: chapter 8's flash, wasm and native, timed in one browser session.
WASM_CC    ?= clang --target=wasm32-wasi
WASM_AR    ?= $(firstword $(shell command -v llvm-ar llvm-ar-14 2>/dev/null) llvm-ar)
WEB_CHAPTERS := 0 1 2 3 4 5 6 7 8 10 11 12 13
WEB_TRAIN_STEPS ?= 1200
WASM_BINS := $(WEB_CHAPTERS:%=build/wasm/chapter%)
.PHONY: web test-web bench-web
web: $(BUILD)/chapter13
	@sh scripts/web/check_toolchain.sh '$(WASM_CC)' '$(WASM_AR)'
	@$(MAKE) -s --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC)) BUILD=build/wasm CC='$(WASM_CC)' AR='$(WASM_AR)' HAVE_MPI= \
	  OPT=-O2 FAST_OPT='-O3 -msimd128' EXTRA_CFLAGS='-D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_PROCESS_CLOCKS' \
	  EXTRA_LDFLAGS='-Wl,--strip-all -Wl,-z,stack-size=1048576 -lwasi-emulated-signal -lwasi-emulated-process-clocks' $(WASM_BINS)
	@WEB_TRAIN_STEPS=$(WEB_TRAIN_STEPS) sh scripts/web/build.sh build/wasm build/web $(BUILD)/chapter13 $(WEB_CHAPTERS)
test-web: web $(CHAPTER_BINS) $(TOOLS)
	@BUILD=$(BUILD) WEB_REQUIRED=1 sh tests/run_tests.sh tests/test_web.sh tests/web/test_web_browser.sh
bench-web: web $(BUILD)/chapter8
	@sh tests/web/bench_web.sh $(BUILD)/chapter8

help:
	@echo "attention-in-c: make targets"
	@echo "  make                build everything into $(BUILD)/"
	@echo "  make chapterN       build and run chapter N (N = 0..13); ARGS='--help' passes flags"
	@echo "  make test           run all tests; last line 'N passed, M failed, K skipped'"
	@echo "  make test-docs      every transcript, PyTorch snippet and figure of the docs against the programs"
	@echo "  make test-common    tests of common/ only"
	@echo "  make test-chapterN  tests of chapter N only"
	@echo "  make sanitize       all tests under ASan + UBSan"
	@echo "  make memcheck       all tests under valgrind"
	@echo "  make test-windows   build with MinGW-w64, run the tests and programs under wine (chapter 9, the grader: Linux only)"
	@echo "  make test-arm64     build for ARM64, run the tests and programs under qemu-aarch64"
	@echo "  make test-musl      build with musl-gcc, run the tests and programs"
	@echo "  make test-posix     a clean build with -D_POSIX_C_SOURCE=200809L (no glibc extensions), its C tests"
	@echo "  make fuzz           libFuzzer on the .npy loader and flag parser (FUZZ_SECONDS=60)"
	@echo "  make golden         rewrite tests/fixtures with PyTorch (PYTHON=... to choose)"
	@echo "  make exercises      write exercises/: blanks of LEVEL=1|2|3 (default 1) in CHAPTERS=3,4 (default 1-7; all for 8 too)"
	@echo "  make check-exercises  prove every blank and bug is caught; last line 'exercises: B blanks, C caught, M missed'"
	@echo "  make grade DIR=path LEVEL=N CHAPTERS=a,b  grade one student's tree, blank by blank, sandboxed; last line 'score: X/Y'"
	@echo "  make grade-class SUBMISSIONS=dir LEVEL=N CHAPTERS=a,b [JOBS=N] [ROSTER=f.csv]  a folder per student -> build/grade/<dir>/class.csv"
	@echo "                      (+ Gradescope/PrairieLearn results.json, grading.json); STUDENT=id regrades one"
	@echo "  make gradescope-autograder LEVEL=N CHAPTERS=a,b  build/gradescope/autograder.zip for Gradescope"
	@echo "  make prairielearn-kit LEVEL=N CHAPTERS=a,b  build/prairielearn/<question>/: a PrairieLearn question and its grading image"
	@echo "  make hint BLANK=name [TIER=1|2|3]  a blank's hint: 1 the idea, 2 which helpers, 3 the PyTorch line"
	@echo "  make bugs           write bugs/: one realistic mistake per chapter, the key beside it in bugs.ANSWERS.md"
	@echo "  make similarity SUBMISSIONS=dir LEVEL=N  answers compared blank by blank (never run) -> similarity.csv"
	@echo "  make grade-bugs SUBMISSIONS=dir  a bug hunt: per student and chapter, fixed? small fix? -> bugs.csv"
	@echo "  make bench          chapter 8: time each attention version over T (BENCH_QUICK=1: short)"
	@echo "  make bench-chapter11  chapter 11: the KV cache, GQA, bandwidth; its decode step against PyTorch"
	@echo "  make bench-chapter9   chapter 9: the ring over a 1 Gbit/s link, overlapped or not (needs MPI)"
	@echo "  make bench-chapter12  chapter 12: the flash backward against the forward and chapter 10's backward, one run"
	@echo "  make bench-chapter13  chapter 13: a training step and a decode against PyTorch, one thread (numpy, torch)"
	@echo "  make bench-chapter12-torch  chapter 12's flash backward against PyTorch's autograd, one process (numpy, torch)"
	@echo "  make bench-torch    chapter 8 and PyTorch in one process, one thread, interleaved rounds (numpy, torch)"
	@echo "                      on the fastest right OpenBLAS kernel set (OPENBLAS_CORETYPE raced; BENCH_QUICK=1: short)"
	@echo "  BENCH_KEEP_OPENBLAS_ENV=1  bench-torch, bench-chapter12-torch race no kernel set: OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE as set"
	@echo "  OMP=1               chapter 8's flash attention on all cores (OpenMP); default one thread"
	@echo "  make chapter9       chapter 9 under mpirun on NP=2 processes (ARGS='--parallel sequence'); needs MPI"
	@echo "  make test-chapter9-full  chapter 9's parity tests on every case, P = 1..4, both modes"
	@echo "  make test-chapter12-full  chapter 12's tests and its peak memory at T = 65536 (about 25 s)"
	@echo "  make plots          figures (PNG) from the chapters' --dump into $(BUILD)/plots/ (matplotlib; PYTHON=...)"
	@echo "  make figures        redraw docs/img/ from the current programs, each PNG with its data (NAME.txt)"
	@echo "  make test-plots     check every plot script draws a non-empty figure (skipped without matplotlib)"
	@echo "  make web            build/web/: the chapters as WebAssembly in a static page (clang, lld, wasi-libc)"
	@echo "  make test-web       each .wasm under node against the native program, then the page in headless Chromium"
	@echo "  make bench-web      chapter 8's flash as wasm and native, in one browser session"
	@echo "  make clean          remove build/"
	@echo "  CC=clang            build with clang instead of the default compiler"

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)
