# Makefile for tilec. Plain make plus GNU make's wildcard and pattern rules.
# Everything generated goes to build/; `make clean` removes it.

# The version is defined once, in src/tilec.h; the Makefile only copies it into tilert.pc.
VERSION = $(shell sed -n 's/^\#define TILEC_VERSION "\(.*\)"$$/\1/p' src/tilec.h)

# libtilert's shared library as Debian names it: the file libtilert.so.VERSION, its SONAME
# libtilert.so.MAJOR (a link to it), and libtilert.so (a link to that) for the linker.
SOMAJOR = $(firstword $(subst ., ,$(VERSION)))
SHLIB = libtilert.so.$(VERSION)

PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
LIBDIR = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include
PKGCONFIGDIR = $(LIBDIR)/pkgconfig

CC = cc
AR = ar
CFLAGS = -std=c11 -Wall -Wextra -Werror -O2 -g
CPPFLAGS =
LDFLAGS =
LDLIBS = -lm

# Where CUDA lives; empty: tilec and the tests look at CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda.
CUDA_HOME ?=
ifneq ($(CUDA_HOME),)
export CUDA_HOME
endif

# The sanitizer build: `make check` builds everything again with B=build/asan SAN='$(SANFLAGS)'.
# -O0 and -Wno-error: with -O2, gcc 12's UBSan instrumentation makes bogus warnings (e.g.
# "null format string" at vsnprintf); warnings are enforced by the normal build.
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -g -O0 -Wno-error
B = build
SAN =

TILEC_CPPFLAGS = -Isrc -Ibuild -Iruntime -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)
RT_CPPFLAGS = -Iruntime -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)
UNIT_CPPFLAGS = -Isrc -Ibuild -Iruntime -Itests/unit -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)

SRCS = $(wildcard src/*.c)
OBJS = $(SRCS:src/%.c=$(B)/obj/%.o) $(B)/obj/lexer.o $(B)/obj/parser.o
LIB_OBJS = $(filter-out $(B)/obj/main.o,$(OBJS))
RT_SRCS = $(wildcard runtime/*.c)
UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNITS = $(UNIT_SRCS:tests/unit/%.c=$(B)/unit/%)

all: $(B)/tilec $(B)/libtilert.a $(B)/libtilert.so

# ---------------------------------------------------------------- generated sources (build/ only)

build/lexer.c: grammar/lexer.re
	@mkdir -p build
	re2c -W -o build/lexer.c grammar/lexer.re

# A pattern rule, so that one bison run makes both files.
build/%.c build/%.h: grammar/%.y
	@mkdir -p build
	bison -Wall -Werror --defines=build/$*.h -o build/$*.c grammar/$*.y

# The emulator of --target=emu is written once, in runtime/tilec_emu.h; emit_emu.c embeds it as a string.
build/tilec_emu.inc: runtime/tilec_emu.h
	@mkdir -p build
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' runtime/tilec_emu.h >$@

# The mbarriers of --target=emu, written into the programs that use them: emit_emu.c embeds them too.
build/tilec_emu_mbarriers.inc: runtime/tilec_emu_mbarriers.h
	@mkdir -p build
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' runtime/tilec_emu_mbarriers.h >$@

# The cp of --target=emu: tilec_cp.h (the walk and the decompression, which isa.c compiles too) and its
# asynchronous glue, written into the programs that issue a cp; emit_emu.c embeds both.
build/tilec_cp.inc: runtime/tilec_cp.h
	@mkdir -p build
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' runtime/tilec_cp.h >$@

build/tilec_emu_cp.inc: runtime/tilec_emu_cp.h
	@mkdir -p build
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' runtime/tilec_emu_cp.h >$@

# The TMA copies and the mma of --target=emu, written into the programs that issue one: emit_emu.c embeds them;
# the encoding of tensor maps, which emit_cu.c embeds in the headers' host functions (and tilert.c includes).
build/tilec_emu_tma.inc build/tilec_mma.inc build/tilec_emu_mma.inc build/tilec_tensormap.inc: build/%.inc: runtime/%.h
	@mkdir -p build
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@

# The conversions of the 8-bit and narrower floats: written once, in runtime/tilec_minifloat.h; minifloat.c
# compiles it for tilec and embeds it as a string for the outputs that use them.
build/tilec_minifloat.inc: runtime/tilec_minifloat.h
	@mkdir -p build
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' runtime/tilec_minifloat.h >$@

# ---------------------------------------------------------------- the compiler

$(B)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(TILEC_CPPFLAGS) -c -o $@ $<

$(B)/obj/%.o: build/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(TILEC_CPPFLAGS) -c -o $@ $<

# Named here, the generated files are not intermediate: make keeps them.
$(B)/obj/lexer.o: build/lexer.c
$(B)/obj/parser.o: build/parser.c
$(OBJS): src/tilec.h build/parser.h
$(B)/obj/emit_emu.o: build/tilec_emu.inc build/tilec_emu_mbarriers.inc build/tilec_cp.inc build/tilec_emu_cp.inc \
                    build/tilec_emu_tma.inc build/tilec_mma.inc build/tilec_emu_mma.inc
$(B)/obj/minifloat.o: build/tilec_minifloat.inc runtime/tilec_minifloat.h
$(B)/obj/emit_cu.o: build/tilec_tensormap.inc
$(B)/obj/isa.o: runtime/tilec_cp.h

$(B)/tilec: $(OBJS)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $(OBJS) $(LDLIBS)

# ---------------------------------------------------------------- libtilert

$(B)/rt/%.o: runtime/%.c runtime/tilert.h runtime/tilec_tensormap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(RT_CPPFLAGS) -c -o $@ $<

$(B)/rt/%.pic.o: runtime/%.c runtime/tilert.h runtime/tilec_tensormap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(RT_CPPFLAGS) -fPIC -c -o $@ $<

$(B)/libtilert.a: $(RT_SRCS:runtime/%.c=$(B)/rt/%.o)
	rm -f $@
	$(AR) -rc $@ $(RT_SRCS:runtime/%.c=$(B)/rt/%.o)

$(B)/$(SHLIB): $(RT_SRCS:runtime/%.c=$(B)/rt/%.pic.o)
	$(CC) $(LDFLAGS) $(SAN) -shared -Wl,-soname,libtilert.so.$(SOMAJOR) -o $@ \
		$(RT_SRCS:runtime/%.c=$(B)/rt/%.pic.o) -ldl

$(B)/libtilert.so: $(B)/$(SHLIB)
	ln -sf $(SHLIB) $(B)/libtilert.so.$(SOMAJOR)
	ln -sf libtilert.so.$(SOMAJOR) $@

# ---------------------------------------------------------------- unit tests
# test_tilert links libtilert; every other test_*.c links the compiler's objects except main.o.

$(B)/unit/test_tilert: tests/unit/test_tilert.c tests/unit/unit.h runtime/tilert.h $(B)/libtilert.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(UNIT_CPPFLAGS) `pkg-config --cflags check` $(LDFLAGS) -o $@ \
		tests/unit/test_tilert.c $(B)/libtilert.a -ldl `pkg-config --libs check`

$(B)/unit/%: tests/unit/%.c tests/unit/unit.h tools/ulps.h src/tilec.h build/parser.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(UNIT_CPPFLAGS) `pkg-config --cflags check` $(LDFLAGS) -o $@ \
		$< $(LIB_OBJS) `pkg-config --libs check` $(LDLIBS)

# What one test pass needs, for B=build and for B=build/asan.
check-build: $(B)/tilec $(B)/libtilert.a $(UNITS)

# ---------------------------------------------------------------- make check
# Each step is a target of its own, check-NAME, listed in CHECK_STEPS. make check runs them in parallel,
# as many at a time as the machine has cores (CHECK_JOBS; `make check CHECK_JOBS=1` runs them one after
# another, and a -jN on the command line, -j1 included, wins over it). A step runs its runner through
# tests/run-step.sh, which keeps its PASS/FAIL lines in build/check/check-NAME.log (prefixed asan/ for
# the sanitizer binaries), prints them when the step ends, turns a runner that failed without a FAIL
# line into one, and records the step's CPU and wall seconds in build/check/check-NAME.cpu
# (tools/check-times.sh prints them). The last line is the total over every step's log (also gathered
# in build/check.log, in CHECK_STEPS order).
# CHECK_STEPS is ordered by cost, the costliest first, so that make starts them first and the cores
# finish together; tools/check-times.sh shows the order a new measurement suggests.
# A new step: add its name to CHECK_STEPS and a rule `check-NAME: check-env` that runs $(STEP) (or,
# for a runner tests/NAME.sh TILEC, its name to TILEC_RUNNERS).
# The steps that cost much and find little that these do not (the emulator's tests again on the
# sanitizer binary, an 8192 x 8192 GEMM epilogue) are CHECK_LARGE_STEPS, run by make check-large.

CHECK_STEPS = emu run-golden ptx-routes asan-unit asan-run-golden embed ptxas copy-diff draw asan-fuzz-replay \
	copy-twins emu-mutations unit asan-robustness asan-cli robustness docs fuzz-replay cli asan-draw tables install man \
	minifloat-ptx cp-forms f32x2 smem-banks
CHECK_LARGE_STEPS = emu-large asan-emu

CHECK_JOBS = $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS))

# The sanitizers' settings for the asan steps; LeakSanitizer only where it can run (not under ptrace).
# CHECK_SANITIZED=1 tells a runner that it checks the sanitizer binary, after the normal one: it may
# leave out what only tests programs other than tilec (run-golden.sh and draw.sh say what).
STEP = sh tests/run-step.sh build/check/$@.log
ASAN_ENV = CHECK_SANITIZED=1 ASAN_OPTIONS=detect_leaks=$$(cat build/check/lsan) \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# check-steps-run LOG STEPS: runs the steps in parallel, gathers their logs into LOG and prints the
# total of PASS and FAIL lines as the last line; fails when a test failed.
define check-steps-run
	@rm -f $(2:%=build/check/check-%.log) $(2:%=build/check/check-%.cpu)
	@$(MAKE) --no-print-directory $(CHECK_J) $(2:%=check-%)
	@for s in $(2); do cat build/check/check-$$s.log; done >$(1)
	@awk '/^PASS /{p++} /^FAIL /{f++} END{printf "%d passed, %d failed\n", p, f; exit (f > 0)}' $(1)
endef

check:
	@sh tools/install-deps.sh
	@$(MAKE) --no-print-directory $(CHECK_J) all check-build
	@$(MAKE) --no-print-directory $(CHECK_J) B=build/asan SAN='$(SANFLAGS)' check-build
	@rm -rf build/check build/check.log
	$(call check-steps-run,build/check.log,$(CHECK_STEPS))

check-env:
	@mkdir -p build/check
	@printf 'int main(void) { return 0; }\n' >build/check/lsan-probe.c
	@$(CC) $(SANFLAGS) -o build/check/lsan-probe build/check/lsan-probe.c
	@if ASAN_OPTIONS=detect_leaks=1 build/check/lsan-probe >/dev/null 2>&1; then echo 1 >build/check/lsan; \
	else echo 0 >build/check/lsan; echo 'make check: LeakSanitizer cannot run here; ASAN_OPTIONS=detect_leaks=0'; fi

check-unit: check-env
	@for t in $(UNIT_SRCS:tests/unit/%.c=%); do $(STEP) - unit/$$t build/unit/$$t; done
check-asan-unit: check-env
	@for t in $(UNIT_SRCS:tests/unit/%.c=%); do $(ASAN_ENV) $(STEP) asan unit/$$t build/asan/unit/$$t; done
# Runners tests/NAME.sh TILEC, run on both binaries: a new one only needs its name here and in CHECK_STEPS.
TILEC_RUNNERS = run-golden cli fuzz-replay robustness draw copy-diff minifloat-ptx cp-forms f32x2 smem-banks
$(TILEC_RUNNERS:%=check-%): check-env
	@$(STEP) - $(@:check-%=%) sh tests/$(@:check-%=%).sh build/tilec
$(TILEC_RUNNERS:%=check-asan-%): check-env
	@$(ASAN_ENV) $(STEP) asan $(@:check-asan-%=%) sh tests/$(@:check-asan-%=%).sh build/asan/tilec
check-install: check-env
	@$(STEP) - install sh tests/install.sh '$(MAKE)'
check-ptxas: check-env
	@$(STEP) - ptxas sh tests/ptxas.sh
check-ptx-routes: check-env
	@$(STEP) - ptx-routes sh tests/ptx-routes.sh build/tilec
check-emu: check-env
	@$(STEP) - emu sh tests/emu.sh build/tilec
# make check's emu builds the examples' emulation code for sm_80; check-large's asan-emu for sm_90.
check-asan-emu: check-env
	@EMU_NVCC_ARCHS=sm_90 $(ASAN_ENV) $(STEP) asan emu sh tests/emu.sh build/asan/tilec
check-emu-mutations: check-env
	@$(STEP) - emu-mutations sh tests/emu-mutations.sh build/tilec
check-copy-twins: check-env
	@$(STEP) - copy-twins sh tests/copy-twins.sh build/tilec
check-tables: check-env
	@$(STEP) - tables sh tests/tables.sh build/tilec
check-man: check-env
	@$(STEP) - man sh tests/man.sh
check-embed: check-env
	@$(STEP) - embed sh tests/embed.sh build/tilec
check-docs: check-env
	@if [ -f tests/docs.sh ]; then $(STEP) - docs sh tests/docs.sh; else : >build/check/$@.log; fi
check-emu-large: check-env
	@$(STEP) - emu-large sh tests/emu-large.sh build/tilec

# ---------------------------------------------------------------- make check-large
# The checks make check leaves out (CHECK_LARGE_STEPS above), in parallel the same way, with their own
# total as the last line (build/check-large.log): minutes of CPU time.

check-large:
	@sh tools/install-deps.sh
	@$(MAKE) --no-print-directory $(CHECK_J) all
	@$(MAKE) --no-print-directory $(CHECK_J) B=build/asan SAN='$(SANFLAGS)' check-build
	$(call check-steps-run,build/check-large.log,$(CHECK_LARGE_STEPS))

# ---------------------------------------------------------------- make demo

demo:
	@sh tools/install-deps.sh
	@$(MAKE) --no-print-directory build/tilec
	@sh tools/demo.sh build/tilec

# ---------------------------------------------------------------- install

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	cp build/tilec $(DESTDIR)$(BINDIR)/tilec
	cp docs/tilec.1 $(DESTDIR)$(MANDIR)/man1/tilec.1
	cp build/libtilert.a build/$(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SHLIB) $(DESTDIR)$(LIBDIR)/libtilert.so.$(SOMAJOR)
	ln -sf libtilert.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libtilert.so
	cp runtime/tilert.h $(DESTDIR)$(INCLUDEDIR)/tilert.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
		runtime/tilert.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/tilert.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tilec $(DESTDIR)$(MANDIR)/man1/tilec.1 \
		$(DESTDIR)$(LIBDIR)/libtilert.a $(DESTDIR)$(LIBDIR)/libtilert.so \
		$(DESTDIR)$(LIBDIR)/libtilert.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/$(SHLIB) \
		$(DESTDIR)$(INCLUDEDIR)/tilert.h $(DESTDIR)$(PKGCONFIGDIR)/tilert.pc

clean:
	rm -rf build

# ---------------------------------------------------------------- make fuzz (optional: clang + libFuzzer)
# Builds the libFuzzer harness in build/fuzz and runs it for FUZZ_SECONDS (default 60); docs/fuzzing.md.

fuzz:
	@$(MAKE) --no-print-directory -f fuzz/Makefile.fuzz fuzz

.PHONY: all check check-build check-large check-env $(CHECK_STEPS:%=check-%) $(CHECK_LARGE_STEPS:%=check-%) demo install uninstall clean fuzz
