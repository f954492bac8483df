# SPDX-License-Identifier: MIT
# Build of libiolatency (the controller: exactly include/iolatency.h), the iolat CLI and its
# application library (engines, simulator, job files, runner, report), iolatd, tests and benchmarks.
#   make            library, CLI
#   make test       build and run every test (tests/runtests.sh)
#   make test SAN=asan | SAN=tsan    the same under ASan+UBSan or TSan (separate build dir)
#   make bench      build the benchmarks
#   make check-core-deps   src/core includes only C11 headers
#   make check-layers      includes and calls follow the layers (scripts/check_layers.sh), no
#                          new circle between the files of a folder (scripts/file_cycles.sh)
#   make check-functions   no function over 80 lines without a reason (scripts/long_functions.sh)
#   make install [PREFIX=/usr/local] [DESTDIR=]   header, libraries, iolatency.pc, iolat, iolatd (sbin) + unit,
#                  man pages (NOMAN=1: without them, where scdoc is missing)
#   make man        the man pages from man/*.scd (scdoc), into $(O)/man
#   make vm-test    iolatd on Debian 12's stock kernel under QEMU (tests/vm; minutes, see docs/iolatd.md)
#   make vm-quickstart  README.md's quick start verbatim in a systemd guest (tests/vm/sysd.sh; minutes)
#   make vm-weights iolatd's weights against the kernel's io.cost in the same guest (bench/vm_weights.sh;
#                   a benchmark, ~10 min: writes bench/results/vm_weights.json, not run by make test)
#   make deb        the Debian packages (dpkg-buildpackage in $(O)/pkg; scripts/package_check.sh checks them)
# CC=clang works too. Every source module is found by wildcard: adding a file needs no edit here.

CC      ?= cc
SAN     ?=
O       ?= build$(if $(SAN),-$(SAN))
OPT     ?= -O2
WARN    := -Wall -Wextra -Werror -Wmissing-prototypes -Wshadow -Wno-unused-parameter
CFLAGS  ?= $(OPT) -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -fPIC $(WARN) -Iinclude -Isrc $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) $(CONFIG_DEFS)
# The library's own; liburing is the engines' (URING_LIBS), linked by iolat, tests and bench.
LDLIBS  = -lpthread -lm

ifeq ($(SAN),asan)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ifeq ($(SAN),tsan)
SANFLAGS = -fsanitize=thread -fno-omit-frame-pointer
endif

# liburing: found through pkg-config or its header (override: make HAVE_URING=0)
HAVE_URING ?= $(shell (pkg-config --exists liburing 2>/dev/null || test -e /usr/include/liburing.h) && echo 1)
ifeq ($(HAVE_URING),1)
CONFIG_DEFS += -DCONFIG_HAVE_LIBURING
URING_LIBS := -luring
endif

# BPF (iolatd's measurement): clang, bpftool, libbpf and a vmlinux.h at build
# time. The vmlinux.h is the one vendored for the target's architecture
# (src/daemon/sys/bpf/vmlinux/ARCH/vmlinux.h, trimmed, from scripts/vmlinux_h.sh;
# CO-RE relocates it at load on any kernel), else one generated from the build
# host's BTF. Without them iolatd is still built and says it cannot measure;
# HAVE_BPF=1 makes a missing piece an error (the Debian build does), HAVE_BPF=0
# leaves BPF out. BPF_ARCH is the target's (from $(CC) -dumpmachine), not the
# build host's.
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
BPF_CLANG ?= clang
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH  ?= $(shell $(CC) -dumpmachine | sed -e 's/-.*//' -e 's/^x86_64$$/x86/' -e 's/^i[3-6]86$$/x86/' \
		-e 's/^aarch64.*/arm64/' -e 's/^p\(ower\)*pc64.*/powerpc/' -e 's/^s390x$$/s390/' \
		-e 's/^riscv64$$/riscv/' -e 's/^loongarch64$$/loongarch/')
VMLINUX_H_VENDORED := src/daemon/sys/bpf/vmlinux/$(BPF_ARCH)/vmlinux.h
VMLINUX_H := $(if $(wildcard $(VMLINUX_H_VENDORED)),$(VMLINUX_H_VENDORED),$(O)/bpf/vmlinux.h)
HAVE_BPF  ?= $(shell test -n "$(BPFTOOL)" && command -v $(BPF_CLANG) >/dev/null 2>&1 && test -e /usr/include/bpf/libbpf.h && { test -e $(VMLINUX_H_VENDORED) || test -r $(VMLINUX_BTF); } && echo 1)
ifeq ($(HAVE_BPF),1)
CONFIG_DEFS += -DCONFIG_HAVE_BPF
BPF_LIBS := -lbpf -lelf -lz
endif

UTIL_SRC   := $(wildcard src/util/*.c)
CONF_SRC   := $(wildcard src/conf/*.c)
CORE_SRC   := $(wildcard src/core/*.c)
SYNC_SRC   := $(wildcard src/sync/*.c)
ENGINE_SRC := $(wildcard src/engine/*.c)
SIM_SRC    := $(wildcard src/sim/*.c)
JOB_SRC    := $(wildcard src/job/*.c)
REPORT_SRC := $(wildcard src/report/*.c)
RUN_SRC    := $(wildcard src/run/*.c)
SCEN_SRC   := $(wildcard src/scen/*.c src/scen/*/*.c)
CALIB_SRC  := $(wildcard src/calib/*.c)
DAEMON_SRC := $(wildcard src/daemon/*.c src/daemon/*/*.c)
TOOL_SRC   := $(filter-out tools/iolatd.c,$(wildcard tools/*.c))

# libiolatency is its header: the controller and what it stands on, and the
# configuration grammar iolatd reads its file with (src/conf). The engines (and
# liburing) are the application's (docs/design.md, "The library is its header").
LIB_OBJ  := $(patsubst %.c,$(O)/%.o,$(UTIL_SRC) $(CONF_SRC) $(CORE_SRC) $(SYNC_SRC))
APP_OBJ  := $(patsubst %.c,$(O)/%.o,$(CALIB_SRC) $(SCEN_SRC) $(RUN_SRC) $(REPORT_SRC) $(JOB_SRC) $(SIM_SRC) $(ENGINE_SRC))
TOOL_OBJ := $(patsubst %.c,$(O)/%.o,$(TOOL_SRC))
DAEMON_OBJ := $(patsubst %.c,$(O)/%.o,$(DAEMON_SRC))

LIB_A  := $(O)/libiolatency.a
LIB_SO := $(O)/libiolatency.so
APP_A  := $(O)/libiolat_app.a
IOLAT  := $(O)/iolat
DAEMON_A := $(O)/libiolatd.a
IOLATD := $(O)/iolatd

TEST_SRC  := $(wildcard tests/*/test_*.c)
TEST_BIN  := $(patsubst %.c,$(O)/%,$(TEST_SRC))
TEST_HELP := $(patsubst %.c,$(O)/%.o,$(wildcard tests/helpers/*.c))
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(patsubst %.c,$(O)/%,$(BENCH_SRC))

.PHONY: all lib test tests bench clean check-core-deps check-layers check-functions install man vm-test vm-quickstart vm-weights deb FORCE

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
VERSION := 0.1.0
SOVERSION := 1
# The tools say it (iolat -V, iolatd --version): a pp-number, stringified in src/util/version.h.
CONFIG_DEFS += -DIOLAT_VERSION=$(VERSION)
all: lib $(IOLAT) $(IOLATD)
lib: $(LIB_A) $(LIB_SO)

# Objects depend on the configuration they were built with: a changed compiler,
# flags or liburing detection rebuilds them.
CONFIG_STAMP := $(O)/config.stamp
CONFIG_LINE := $(CC) $(ALL_CFLAGS)
$(shell mkdir -p $(O) && (test -f $(CONFIG_STAMP) && [ "$$(cat $(CONFIG_STAMP))" = "$(CONFIG_LINE)" ] || echo "$(CONFIG_LINE)" > $(CONFIG_STAMP)))

$(O)/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The shared library exports exactly the functions of the public header. It is
# never unloaded (-z nodelete): it owns a pthread key whose destructor runs at
# every thread's exit (src/sync/ctl_sync.c), which must outlive a dlclose().
$(O)/libiolatency.map: include/iolatency.h
	@mkdir -p $(dir $@)
	{ echo 'IOLATENCY_0 { global:'; grep -oE '\biolat_[a-z_]+\(' $< | tr -d '(' | sort -u | sed 's/$$/;/'; echo 'local: *; };'; } > $@

$(LIB_SO): $(LIB_OBJ) $(O)/libiolatency.map
	$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,-soname,libiolatency.so.$(SOVERSION) -Wl,-z,nodelete -Wl,--version-script=$(O)/libiolatency.map -o $@ $(LIB_OBJ) $(LDLIBS)

$(APP_A): $(APP_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(IOLAT): $(TOOL_OBJ) $(APP_A) $(DAEMON_A) $(LIB_A)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(APP_A) $(DAEMON_A) $(LIB_A) $(URING_LIBS) $(LDLIBS)

# iolatd: the daemon's library (src/daemon) over the controller's.
$(DAEMON_A): $(DAEMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(IOLATD): $(O)/tools/iolatd.o $(DAEMON_A) $(LIB_A)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $< $(DAEMON_A) $(LIB_A) $(BPF_LIBS) $(LDLIBS)

# The BPF program: vmlinux.h (vendored, or from the build host's BTF where the
# target's architecture has none), the object, its skeleton.
$(O)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	@test -n "$(BPFTOOL)" || { echo "make: BPF: no bpftool (apt-get install bpftool) and no vendored $(VMLINUX_H_VENDORED)" >&2; exit 1; }
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(O)/bpf/iolatd.bpf.o: src/daemon/sys/bpf/iolatd.bpf.c src/daemon/sys/bpf/iolatd_event.h $(VMLINUX_H)
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -O2 -g -Wall -Werror -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -I$(dir $(VMLINUX_H)) -Isrc/daemon/sys/bpf -c $< -o $@

$(O)/bpf/iolatd.skel.h: $(O)/bpf/iolatd.bpf.o
	$(BPFTOOL) gen skeleton $< name iolatd_bpf > $@.tmp && mv $@.tmp $@

ifeq ($(HAVE_BPF),1)
$(O)/src/daemon/sys/bpf_source.o: $(O)/bpf/iolatd.skel.h
$(O)/src/daemon/sys/bpf_source.o: ALL_CFLAGS += -I$(O)/bpf -Isrc/daemon/sys
endif

$(O)/tests/%: tests/%.c $(TEST_HELP) $(APP_A) $(DAEMON_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(TEST_HELP) $(APP_A) $(DAEMON_A) $(LIB_A) -lcmocka $(BPF_LIBS) $(URING_LIBS) $(LDLIBS)

$(O)/bench/%: bench/%.c $(APP_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(APP_A) $(LIB_A) $(URING_LIBS) $(LDLIBS)

tests: $(TEST_BIN) $(IOLAT) $(IOLATD) $(LIB_SO)
ifeq ($(HAVE_BPF),1)
tests: $(O)/bpf/iolatd.bpf.o   # read by tests/daemon/test_bpf_core
endif
test: tests check-core-deps check-layers check-functions
	O=$(O) SAN=$(SAN) tests/runtests.sh $(TEST_BIN)

bench: $(BENCH_BIN) $(IOLAT)

check-core-deps:
	@bad=$$(grep -hoE '#include *<[^>]+>' src/core/*.c src/core/*.h src/util/units.h src/util/fifo.h 2>/dev/null | grep -vE '<(stdatomic|stdint|stdbool|stddef|string|errno|limits|stdalign|assert)\.h>' | sort -u); \
	if [ -n "$$bad" ]; then echo "src/core includes non-C11 headers: $$bad"; exit 1; fi; \
	echo "check-core-deps: src/core includes only C11 headers"

# The floor plan of docs/design.md: includes and calls point down the layers,
# and no new circle between the files of one folder (scripts/file_cycles.sh).
check-layers: $(LIB_OBJ) $(APP_OBJ) $(TOOL_OBJ) $(DAEMON_OBJ) $(O)/tools/iolatd.o
	@scripts/check_layers.sh -o $(O)
	@scripts/file_cycles.sh -o $(O)

# The house rule "functions under ~80 lines": each longer one says why at its top.
check-functions:
	@scripts/long_functions.sh && echo "check-functions: no function over 80 lines without a reason"

# Written at every make: it holds PREFIX and LIBDIR, which may differ from the last run.
$(O)/iolatency.pc: FORCE
	@mkdir -p $(dir $@)
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: iolatency\nDescription: io.latency, the latency-target I/O controller, in user space\nVersion: %s\nLibs: -L$${libdir} -liolatency\nLibs.private: %s\nCflags: -I$${includedir}\n' \
		'$(PREFIX)' '$(LIBDIR)' '$(INCDIR)' '$(VERSION)' '$(LDLIBS)' > $@

# make install [PREFIX=/usr/local] [DESTDIR=...]: header, libraries, pkg-config file, iolat
# (BINDIR), iolatd (SBINDIR: a daemon for root) and its systemd unit (SYSTEMDDIR),
# docs/iolatd.md, the man pages (MANDIR; NOMAN=1 leaves them out where scdoc is missing).
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR  ?= $(PREFIX)/share/doc/iolatency
MANDIR  ?= $(PREFIX)/share/man
SCDOC   ?= scdoc
MAN_PAGES := $(patsubst man/%.scd,$(O)/man/%,$(wildcard man/*.scd))

$(O)/man/%: man/%.scd
	@mkdir -p $(dir $@)
	@command -v $(SCDOC) >/dev/null || { echo "make: $(SCDOC) not found: apt-get install scdoc (or make install NOMAN=1)" >&2; exit 1; }
	$(SCDOC) < $< > $@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)

install: all $(O)/iolatency.pc $(if $(NOMAN),,$(MAN_PAGES))
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR)
	install -m 644 include/iolatency.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libiolatency.so.$(SOVERSION)
	ln -sf libiolatency.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libiolatency.so
	install -m 644 $(O)/iolatency.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 755 $(IOLAT) $(DESTDIR)$(BINDIR)/
	install -m 755 $(IOLATD) $(DESTDIR)$(SBINDIR)/
	install -d $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(DOCDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g; s|@DOCDIR@|$(DOCDIR)|g' contrib/iolatd.service > $(DESTDIR)$(SYSTEMDDIR)/iolatd.service
	chmod 644 $(DESTDIR)$(SYSTEMDDIR)/iolatd.service
	install -m 644 docs/iolatd.md $(DESTDIR)$(DOCDIR)/
ifeq ($(NOMAN),)
	for p in $(MAN_PAGES); do s=$${p##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 644 $$p $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; done
endif

# iolatd on Debian 12's stock 6.1 kernel in a QEMU guest: tests/vm/run.sh (everything under $(O)/vm).
vm-test: $(IOLAT) $(IOLATD)
	O=$(O) bash tests/vm/run.sh

# Issue 28's VM anchor: no control, io.cost and iolatd's weights, side by side in one guest (a benchmark).
vm-weights: $(IOLAT) $(IOLATD)
	O=$(O) bash bench/vm_weights.sh

# README.md's quick start, verbatim, on Debian 12 with systemd (root, mmdebstrap; minutes).
vm-quickstart:
	O=$(O) bash tests/vm/sysd.sh

# The Debian packages, built from a copy of the tree in $(O)/pkg.
deb:
	O=$(O) bash scripts/package_check.sh --build-only

FORCE:

clean:
	rm -rf build build-asan build-tsan build-clang

-include $(shell find $(O) -name '*.d' -type f -not -path '$(O)/promtool/*' 2>/dev/null)
