/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's unwind rules (struct unwind_user_frame) as text, in
 * sframe-dump's words: "cfa=sp+16 ra=*(cfa-8) fp=same", then " signal"
 * and " mangled=a" or " mangled=b" when they apply; "outermost" for the
 * last frame.  sframe-dump prints it, gen-compare compares it, and the
 * sframe-gen tests put its rules in their messages.
 */
#ifndef _SFRAME_FRAME_STR_H
#define _SFRAME_FRAME_STR_H

#include <stddef.h>

struct unwind_user_rule;
struct unwind_user_frame;

/* Room for any rule's text and for any frame's, the NUL included */
#define UNWIND_USER_RULE_STR_SIZE	24
#define UNWIND_USER_FRAME_STR_SIZE	96

int unwind_user_rule_str(const struct unwind_user_rule *r, char *buf, size_t size);
const char *unwind_user_frame_str(const struct unwind_user_frame *f, char *buf,
				  size_t size);

#endif /* _SFRAME_FRAME_STR_H */
