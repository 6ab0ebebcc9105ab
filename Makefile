# SPDX-License-Identifier: GPL-2.0-only
#
# User space stack unwinding: the walker and deferred unwinding, and the
# SFrame reader and registry under it, a line a layer.
#

obj-$(CONFIG_UNWIND_USER)		+= user.o deferred.o
obj-$(CONFIG_UNWIND_USER_DEFERRED_TEST)	+= deferred_test.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe.o sframe_index.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_elf.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_share.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_table.o sframe_registry.o sframe_lookup.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_attach.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_mmap.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_want.o sframe_want_nofault.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_prctl.o
obj-$(CONFIG_UNWIND_USER_SFRAME)	+= sframe_sysfs.o
obj-$(CONFIG_UNWIND_USER_SFRAME_VDSO)	+= sframe_vdso.o
obj-$(CONFIG_SFRAME_KUNIT_TEST)		+= tests/
