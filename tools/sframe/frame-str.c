// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unwind rules as text: see frame-str.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>

#include "frame-str.h"

/**
 * unwind_user_rule_str() - one rule as text
 * @r: the rule.
 * @buf: where to write it.
 * @size: room in @buf (UNWIND_USER_RULE_STR_SIZE is enough).
 *
 * "same", or the base ("cfa", "sp", "fp", "r<regnum>", "?<base>") and
 * the offset, "sp+16", inside "*(...)" when the value is loaded from
 * there.
 *
 * Return: the length of the text, as snprintf().
 */
int unwind_user_rule_str(const struct unwind_user_rule *r, char *buf, size_t size)
{
	char base[8];

	switch (r->base) {
	case UNWIND_USER_BASE_SAME:
		return snprintf(buf, size, "same");
	case UNWIND_USER_BASE_CFA:
		snprintf(base, sizeof(base), "cfa");
		break;
	case UNWIND_USER_BASE_SP:
		snprintf(base, sizeof(base), "sp");
		break;
	case UNWIND_USER_BASE_FP:
		snprintf(base, sizeof(base), "fp");
		break;
	case UNWIND_USER_BASE_REG:
		snprintf(base, sizeof(base), "r%u", r->regnum);
		break;
	default:
		snprintf(base, sizeof(base), "?%u", r->base);
		break;
	}
	return snprintf(buf, size, r->deref ? "*(%s%+d)" : "%s%+d", base, r->offset);
}

/**
 * unwind_user_frame_str() - a frame's rules as text
 * @f: the frame.
 * @buf: where to write them.
 * @size: room in @buf (UNWIND_USER_FRAME_STR_SIZE is enough).
 *
 * Return: @buf.
 */
const char *unwind_user_frame_str(const struct unwind_user_frame *f, char *buf,
				  size_t size)
{
	char cfa[UNWIND_USER_RULE_STR_SIZE], ra[UNWIND_USER_RULE_STR_SIZE];
	char fp[UNWIND_USER_RULE_STR_SIZE];
	const char *signal = f->signal ? " signal" : "";
	const char *mangled = "";

	if (f->ra_signed)
		mangled = f->pauth_key ? " mangled=b" : " mangled=a";
	if (f->outermost) {
		snprintf(buf, size, "outermost%s%s", signal, mangled);
		return buf;
	}
	unwind_user_rule_str(&f->cfa, cfa, sizeof(cfa));
	unwind_user_rule_str(&f->ra, ra, sizeof(ra));
	unwind_user_rule_str(&f->fp, fp, sizeof(fp));
	snprintf(buf, size, "cfa=%s ra=%s fp=%s%s%s", cfa, ra, fp, signal, mangled);
	return buf;
}
