# PGXS build for the scheduler extension.
EXTENSION = scheduler
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" scheduler.control)

MODULE_big = scheduler
OBJS = \
	src/scheduler.o \
	src/jsonutil.o \
	src/labels.o \
	src/quantity.o \
	src/resources.o \
	src/mirror.o \
	src/validation.o \
	src/access.o \
	src/snapshot.o \
	src/topology.o \
	src/framework.o \
	src/equivalence.o \
	src/explain.o \
	src/schedule.o \
	src/profile.o \
	src/queue.o \
	src/scheduling_queue.o \
	src/worker.o \
	src/kube_client.o \
	src/watch.o \
	src/bind.o \
	src/tolerations.o \
	src/plugins/node_unschedulable.o \
	src/plugins/node_name.o \
	src/plugins/taint_toleration.o \
	src/plugins/node_affinity.o \
	src/plugins/node_ports.o \
	src/plugins/node_resources_fit.o \
	src/plugins/balanced_allocation.o \
	src/plugins/image_locality.o \
	src/plugins/inter_pod_affinity.o \
	src/plugins/pod_topology_spread.o \
	src/plugins/default_preemption.o

# The install script is built from sql/install/*.sql, one file per stage,
# in file-name order.  sql/scheduler--0.1.sql is 0.1's script as released
# (kept so ALTER EXTENSION ... UPDATE from 0.1 can be tested), and
# sql/scheduler--<a>--<b>.sql are the upgrade scripts.
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

# Every object depends on the headers (PGXS tracks no header dependencies).
$(OBJS): $(wildcard src/*.h)
