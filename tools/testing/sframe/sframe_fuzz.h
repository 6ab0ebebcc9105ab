/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout of a fuzzer input (sframe_fuzz.c), shared with its mutator
 * (sframe_mutate.c) and the seed writer (sframe_seeds.c).
 *
 * An input is a section followed by a 40-byte tail that steers the run;
 * the tail stays part of the section, as junk after its data:
 *
 *   [size - 40, size - 24)	the mode: how the reader is called
 *   [size - 24, size - 8)	a script for the second writer
 *   [size - 8, size)		picks the addresses looked up
 *
 * Inputs shorter than a part leave it zero.  All tail fields are
 * little-endian, whatever the section's byte order.
 */
#ifndef _SFRAME_FUZZ_H
#define _SFRAME_FUZZ_H

#define FUZZ_ADDR		0x7f0000000000UL
/* The default text: 2 GiB either side of the section, what s32 lookups reach */
#define FUZZ_TEXT_START		(FUZZ_ADDR - 0x80000000UL)
#define FUZZ_TEXT_LEN		0x100000000UL

#define FUZZ_SEED_LEN		8
#define FUZZ_SCRIPT_LEN		16
#define FUZZ_MODE_LEN		16
#define FUZZ_TAIL_LEN		(FUZZ_MODE_LEN + FUZZ_SCRIPT_LEN + FUZZ_SEED_LEN)

/*
 * The mode, byte by byte.  FUZZ_M_FLAGS holds FUZZ_F_* bits.
 * FUZZ_M_FAIL_ALLOC: fail the Nth allocation of the run (0: none).
 * FUZZ_M_BUDGET: u16, the FRE budget the address lookups share (0: none,
 *	sframe_find()).
 * FUZZ_M_TEXT_MB: u16, the text's length in MiB from FUZZ_TEXT_START
 *	(0: FUZZ_TEXT_LEN).
 * FUZZ_M_HOLE: u16 offset (modulo the size) and FUZZ_M_HOLE_LEN bytes of
 *	the section that fault when read (length 0: none).
 * FUZZ_M_ARGS: FUZZ_ARGS_*, sframe_section_init() arguments no section
 *	gives.
 * FUZZ_M_TILE: u32, with FUZZ_F_TILE: the section is the input before its
 *	tail that many times over, then the tail: room for sections too
 *	large for an input.  At most FUZZ_TILE_MAX bytes, enough for more
 *	elements or FDEs than the reader takes, if the input before the tail
 *	is a header or little more (FUZZ_TILE_SMALL bytes); else at most
 *	FUZZ_TILE_MAX_BIG, so that no run takes long to index.
 */
#define FUZZ_M_FLAGS		0
#define FUZZ_M_FAIL_ALLOC	1
#define FUZZ_M_BUDGET		2
#define FUZZ_M_TEXT_MB		4
#define FUZZ_M_HOLE		6
#define FUZZ_M_HOLE_LEN		8
#define FUZZ_M_ARGS		9
#define FUZZ_M_TILE		10

#define FUZZ_F_CACHE		0x01	/* give the section its rule cache */
#define FUZZ_F_VALIDATE		0x02	/* sframe_section_validate() */
#define FUZZ_F_COPY		0x04	/* sframe_section_copy(), look up in the copy */
#define FUZZ_F_TEAR		0x08	/* tear every cache entry before the 2nd pass */
#define FUZZ_F_TILE		0x10	/* see FUZZ_M_TILE */
#define FUZZ_F_TEXT_TOP		0x20	/* the text ends at the top of the address space */
#define FUZZ_F_HOLE_LATE	0x40	/* the hole appears after init (paged out) */
#define FUZZ_F_IMAGE		0x80	/* indexed from a copy too, looked up in a view */

#define FUZZ_ARGS_NORMAL	0
#define FUZZ_ARGS_EMPTY_TEXT	1	/* text_start == text_end */
#define FUZZ_ARGS_HUGE		2	/* a size over 4 GiB */
#define FUZZ_ARGS_HIGH		3	/* a section above user addresses */
#define FUZZ_ARGS_WRAP		4	/* a section that wraps around */

#define FUZZ_TILE_MAX		(5UL << 20)
#define FUZZ_TILE_SMALL		64
#define FUZZ_TILE_MAX_BIG	(256UL << 10)

/* The script: triggers, allowance, offsets, values (see sframe_fuzz.c) */
#define FUZZ_S_TRIGGER		0
#define FUZZ_S_ALLOWANCE	2
#define FUZZ_S_OFFSET		4
#define FUZZ_S_VALUE		8

size_t LLVMFuzzerMutate(u8 *data, size_t size, size_t max_size);

#endif /* _SFRAME_FUZZ_H */
