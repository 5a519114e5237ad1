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

# Install scripts: sql/scheduler--<version>.sql and upgrade scripts sql/scheduler--<a>--<b>.sql.
DATA = $(wildcard sql/$(EXTENSION)--*.sql)

# Every sql/*.sql except the install scripts is a regression test.
REGRESS = $(sort $(filter-out $(EXTENSION)--%,$(patsubst sql/%.sql,%,$(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=$(EXTENSION) --temp-instance=./tmp_regress

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Wextra -Werror
SHLIB_LINK = -lcurl

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PostgreSQL's headers are not clean under -Wextra (unused parameters in
# inline functions); read them as system headers so the flags apply to our
# code only.
override CPPFLAGS := -isystem $(includedir_server) $(CPPFLAGS)

# Every object depends on the headers (PGXS tracks no header dependencies).
$(OBJS): $(wildcard src/*.h)
