// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/sframe/: what SFrame holds in kernel memory, system-wide,
 * for an administrator to see what the unwinder costs a machine.  See
 * Documentation/ABI/testing/sysfs-kernel-sframe.  Root's alone: the
 * figures move by exact index sizes when another user starts a program,
 * which tells what that user runs.
 */
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "sframe_attach.h"
#include "sframe_registry.h"
#include "sframe_share.h"

static ssize_t sections_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%ld\n", sframe_live_sections());
}

static struct kobj_attribute sections_attr = __ATTR_RO_MODE(sections, 0400);

static ssize_t private_bytes_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", sframe_private_bytes());
}

static struct kobj_attribute private_bytes_attr = __ATTR_RO_MODE(private_bytes, 0400);

static ssize_t shared_indexes_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", sframe_shared_indexes());
}

static struct kobj_attribute shared_indexes_attr = __ATTR_RO_MODE(shared_indexes, 0400);

static ssize_t shared_bytes_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", sframe_shared_total_bytes());
}

static struct kobj_attribute shared_bytes_attr = __ATTR_RO_MODE(shared_bytes, 0400);

static ssize_t attached_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%ld\n", sframe_attached_count());
}

static struct kobj_attribute attached_attr = __ATTR_RO_MODE(attached, 0400);

static struct attribute *sframe_attrs[] = {
	&sections_attr.attr,
	&private_bytes_attr.attr,
	&shared_indexes_attr.attr,
	&shared_bytes_attr.attr,
	&attached_attr.attr,
	NULL,
};

static const struct attribute_group sframe_attr_group = {
	.attrs = sframe_attrs,
};

static int __init sframe_sysfs_init(void)
{
	struct kobject *kobj = kobject_create_and_add("sframe", kernel_kobj);
	int ret;

	if (!kobj)
		return -ENOMEM;
	ret = sysfs_create_group(kobj, &sframe_attr_group);
	if (ret)
		kobject_put(kobj);
	return ret;
}
late_initcall(sframe_sysfs_init);
