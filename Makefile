# PGXS build for the scheduler extension.
EXTENSION = scheduler
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" scheduler.control)

MODULE_big = scheduler
# Every src/*.c and src/plugins/*.c.  A plugin is one file in src/plugins/
# and one line in src/plugins/plugins.def (CONTRIBUTING.md).
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/plugins/*.c)))

# plugins.def is the one list of plugins: the build fails unless each
# "const Plugin <Name>Plugin" a file in src/plugins/ defines, with
# .name = "<Name>", has its line PLUGIN(<Name>, ...), and each line its file.
PLUGINS_LISTED := $(sort $(shell sed -n 's/^PLUGIN.\([A-Za-z0-9_]*\),.*/\1/p' src/plugins/plugins.def))
PLUGINS_DEFINED := $(sort $(shell awk '/^const Plugin [A-Za-z0-9_]+Plugin =/ { id = $$3; sub(/Plugin$$/, "", id); want = 1; next } \
	want && /\.name = "/ { n = $$0; sub(/.*\.name = "/, "", n); sub(/".*/, "", n); print (n == id ? id : id "(named:" n ")"); want = 0 }' \
	src/plugins/*.c))
ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
ifneq ($(PLUGINS_LISTED),$(PLUGINS_DEFINED))
$(error src/plugins/plugins.def and src/plugins/*.c disagree: listed without a Plugin defined as listed: [$(filter-out $(PLUGINS_DEFINED),$(PLUGINS_LISTED))]; defined without a line: [$(filter-out $(PLUGINS_LISTED),$(PLUGINS_DEFINED))])
endif
endif

# The install script is built from sql/install/*.sql, one file per stage,
# in file-name order.  sql/scheduler--0.1.sql and sql/scheduler--0.2.sql are
# those versions' scripts as released (kept so ALTER EXTENSION ... UPDATE
# from them can be tested), and sql/scheduler--<a>--<b>.sql are the upgrade
# scripts.
INSTALL_SQL = $(sort $(wildcard sql/install/*.sql))
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/$(EXTENSION)--*.sql))

# Every sql/*.sql except the install scripts is a regression test.
REGRESS = $(sort $(filter-out $(EXTENSION)--%,$(patsubst sql/%.sql,%,$(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION) --temp-instance=./tmp_regress

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Wextra -Werror
SHLIB_LINK = -lcurl

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config

# make SANITIZE=1: the tests' sanitized build (test/sanitized, test/fuzz):
# clang with AddressSanitizer, UndefinedBehaviorSanitizer (no recovery) and
# libFuzzer's coverage, the fuzz harnesses linked in.  The sanitizers'
# runtime comes with the library (-shared-libasan, found by its rpath), so
# a stock postgres loads it; build it in a copy of the tree.  No -fwrapv:
# a signed overflow in our code is a report.  -Wno-unused-parameter: clang
# warns of an fcinfo unused (PG_FUNCTION_ARGS), which gcc lets pass as it
# comes from a system header's macro; gcc's build checks the rest.
ifdef SANITIZE
override CC = clang
override with_llvm = no
CLANG_RT_DIR := $(dir $(shell clang -print-file-name=libclang_rt.asan-x86_64.so))
OBJS += test/fuzz/harness.o test/fuzz/asan_landing.o
SHLIB_LINK += -shared-libasan -Wl,-rpath,$(CLANG_RT_DIR) \
	$(CLANG_RT_DIR)libclang_rt.fuzzer_no_main-x86_64.a -lstdc++
endif

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

ifdef SANITIZE
override CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-strict-aliasing -fPIC \
	-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined \
	-Wall -Wextra -Werror -Wmissing-prototypes -Wno-unused-parameter \
	-include $(srcdir)/test/fuzz/asan_landing.h
endif

# PostgreSQL's headers are not clean under -Wextra (unused parameters in
# inline functions); read them as system headers so the flags apply to our
# code only.
override CPPFLAGS := -isystem $(includedir_server) $(CPPFLAGS)

sql/$(EXTENSION)--$(EXTVERSION).sql: $(INSTALL_SQL)
	cat $^ > $@

# Every object depends on the headers and the plugin list (PGXS tracks no
# header dependencies).
$(OBJS): $(wildcard src/*.h src/*.def) src/plugins/plugins.def
