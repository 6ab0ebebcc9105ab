/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PLT entries as GNU ld writes them, which it gives no SFrame on arm64,
 * nor on s390x in a PIE: code the walker knows by its bytes.  Shared by
 * the KUnit walker suite and the user space harness in tools/testing/sframe/
 * (which defines WALKER_ARCH_*), so both judge it on the same bytes.
 * x86-64 has none: GNU ld describes its PLTs.
 */
#ifndef _UNWIND_USER_STUBS_H
#define _UNWIND_USER_STUBS_H

#if defined(CONFIG_ARM64) || defined(WALKER_ARCH_ARM64)
/* A PLTn entry; UW_PLT_SECOND: where its second instruction is */
static const u8 uw_plt_stub[] = {
	0x10, 0x00, 0x00, 0x90,	/* adrp x16, 0 */
	0x11, 0x02, 0x40, 0xf9,	/* ldr x17, [x16] */
	0x10, 0x02, 0x00, 0x91,	/* add x16, x16, #0 */
	0x20, 0x02, 0x1f, 0xd6,	/* br x17 */
};

#define UW_PLT_SECOND	4
#elif defined(CONFIG_S390) || defined(WALKER_ARCH_S390)
static const u8 uw_plt_stub[] = {
	0xc0, 0x10, 0x00, 0x00, 0x10, 0x00,	/* larl %r1,. + 0x2000 */
	0xe3, 0x10, 0x10, 0x00, 0x00, 0x04,	/* lg %r1,0(%r1) */
	0x07, 0xf1,				/* br %r1 */
	0x0d, 0x10,				/* basr %r1,%r0 */
	0xe3, 0x10, 0x10, 0x0c, 0x00, 0x14,	/* lgf %r1,12(%r1) */
	0xc0, 0xf4, 0xff, 0xff, 0xff, 0xf0,	/* jg PLT0 */
	0x00, 0x00, 0x00, 0x18,			/* .long */
};

#define UW_PLT_SECOND	6
#else
static const u8 uw_plt_stub[] = { 0 };

#define UW_PLT_SECOND	0
#endif

#if defined(CONFIG_ARM64) || defined(WALKER_ARCH_ARM64)
/* A PLTn entry of an object built for BTI, as Debian's are */
static const u8 uw_plt_bti[] = {
	0x5f, 0x24, 0x03, 0xd5,	/* bti c */
	0x10, 0x00, 0x00, 0x90,	/* adrp x16, 0 */
	0x11, 0x02, 0x40, 0xf9,	/* ldr x17, [x16] */
	0x10, 0x02, 0x00, 0x91,	/* add x16, x16, #0 */
	0x20, 0x02, 0x1f, 0xd6,	/* br x17 */
	0x1f, 0x20, 0x03, 0xd5,	/* nop */
};

/* PLT0: the push of {x16, x30}, then the loads and br x17 of a PLTn */
static const u8 uw_plt0[] = {
	0xf0, 0x7b, 0xbf, 0xa9,	/* stp x16, x30, [sp, #-16]! */
	0x10, 0x00, 0x00, 0x90,	/* adrp x16, 0 */
	0x11, 0x02, 0x40, 0xf9,	/* ldr x17, [x16] */
	0x10, 0x02, 0x00, 0x91,	/* add x16, x16, #0 */
	0x20, 0x02, 0x1f, 0xd6,	/* br x17 */
};
#endif

#endif /* _UNWIND_USER_STUBS_H */
