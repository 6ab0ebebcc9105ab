# SPDX-License-Identifier: GPL-2.0-only
#
# kbuild file of the SFrame unwinder; tools/kernel lays it into
# kernel/unwind/.  The project's own entry point is GNUmakefile.
#

obj-$(CONFIG_UNWIND_USER)		+= user.o deferred.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe.o sframe_index.o sframe_table.o \
					   sframe_registry.o sframe_lookup.o sframe_elf.o \
					   sframe_share.o sframe_mmap.o sframe_want.o \
					   sframe_want_nofault.o \
					   sframe_prctl.o sframe_sysfs.o sframe_attach.o
obj-$(CONFIG_UNWIND_USER_SFRAME_VDSO)	+= sframe_vdso.o
obj-$(CONFIG_UNWIND_USER_DEFERRED_TEST)	+= deferred_test.o
obj-$(CONFIG_SFRAME_KUNIT_TEST)		+= tests/
