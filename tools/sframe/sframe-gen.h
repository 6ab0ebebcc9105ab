/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-gen: SFrame V3 made from an object's .eh_frame (DWARF CFI).
 *
 * The library behind the sframe-gen command and the load-time module
 * (LD_AUDIT or LD_PRELOAD).  It reads .eh_frame as hostile input: every
 * read is bounds-checked against the bytes it was given, and the work is
 * linear in their number.  Records whose framing is broken (a length past
 * the end) fail the conversion; an FDE that is malformed (stats.fdes_bad)
 * or that SFrame cannot express (stats.fdes_skipped) is left out and the
 * rest converted.  No globals: conversions may run in several threads.
 * Reading stops at a zero terminator, so a caller that knows only where
 * .eh_frame starts (PT_GNU_EH_FRAME) may give the rest of its segment.
 *
 * Two steps, so that a caller can place the section before it is written
 * (V3 function start addresses are relative to the section):
 *
 *	gen = sframe_gen_new(&in, &stats, err, sizeof(err));
 *	size = sframe_gen_size(gen);
 *	buf = <size bytes at run-time address buf_addr>;
 *	sframe_gen_emit(gen, buf, buf_addr);
 *	sframe_gen_free(gen);
 */
#ifndef _SFRAME_GEN_H
#define _SFRAME_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ELF program header type of .sframe's segment: newer than some <elf.h> */
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

/**
 * enum sframe_gen_arch - the ABI the section is made for
 * @SFRAME_GEN_X86_64: little endian, CFA on RSP/RBP, RA at CFA - 8.
 * @SFRAME_GEN_AARCH64: little endian, CFA on SP/X29, RA in X30 or saved,
 *	signed with PAC where the CFI says so (DW_CFA_AARCH64_negate_ra_state).
 * @SFRAME_GEN_S390X: big endian, CFA on R15/R11, RA in R14 or saved,
 *	CFA offsets stored scaled.
 */
enum sframe_gen_arch {
	SFRAME_GEN_X86_64,
	SFRAME_GEN_AARCH64,
	SFRAME_GEN_S390X,
};

/**
 * struct sframe_gen_input - where an object's CFI is
 * @arch: the ABI.
 * @eh_frame: the .eh_frame bytes.
 * @eh_frame_size: how many; reading stops there or at a zero terminator.
 * @eh_frame_addr: the address of @eh_frame[0] in the address space the
 *	output describes (the file's vaddrs, or a loaded object's run-time
 *	addresses); PC-relative pointers are resolved against it.
 * @text_start: only FDEs whose code lies in [@text_start, @text_end) are
 *	converted; 0 and 0 for all.
 * @text_end: see @text_start.
 * @data_base: the base of DW_EH_PE_datarel pointers (the GOT), 0 if none.
 * @ptr_size: bytes of a DW_EH_PE_absptr pointer: 4 for ELF32 objects,
 *	0 or 8 for 64-bit ones.
 * @big_endian: aarch64 only: a big-endian object (x86_64 is always little
 *	endian, s390x always big).
 * @sframe: the object's own SFrame V3 section, or NULL.  Its FDEs are kept
 *	as they are, and .eh_frame only fills the gaps: FDEs for code none
 *	of them covers (statically linked helpers, assembly whose CFI gas
 *	made no SFrame for).  Copied: it need not outlive sframe_gen_new().
 * @sframe_size: its size.
 * @sframe_addr: its address, in the address space of @eh_frame_addr.
 */
struct sframe_gen_input {
	enum sframe_gen_arch	arch;
	const void		*eh_frame;
	size_t			eh_frame_size;
	uint64_t		eh_frame_addr;
	uint64_t		text_start;
	uint64_t		text_end;
	uint64_t		data_base;
	unsigned int		ptr_size;
	bool			big_endian;
	const void		*sframe;
	size_t			sframe_size;
	uint64_t		sframe_addr;
};

/**
 * struct sframe_gen_stats - what a conversion did
 * @cies: CIEs read.
 * @fdes: DWARF FDEs read.
 * @fdes_out: SFrame FDEs written (flex and kept ones included).
 * @fdes_kept: of those, FDEs of the object's own section (@sframe).
 * @fdes_covered: DWARF FDEs left out because a kept FDE covers their code.
 * @fdes_flex: of those, SFRAME_FDE_TYPE_FLEX.
 * @fdes_skipped: FDEs with a rule SFrame cannot express; a walk ends in
 *	their code.
 * @fdes_bad: FDEs left out because they (or their CIE) are malformed.
 * @fres: SFrame FREs written.
 * @rows_refused: rows of FDEs written that contradict themselves (s390x:
 *	the CFA back at the entry's before r15 is), their code left out.
 * @bytes_described: code bytes that FDEs written cover.
 * @bytes_skipped: code bytes of the FDEs skipped.
 * @reason: why the first FDE skipped or bad was, "" if none.
 */
struct sframe_gen_stats {
	unsigned int	cies;
	unsigned int	fdes;
	unsigned int	fdes_out;
	unsigned int	fdes_kept;
	unsigned int	fdes_covered;
	unsigned int	fdes_flex;
	unsigned int	fdes_skipped;
	unsigned int	fdes_bad;
	unsigned int	fres;
	unsigned int	rows_refused;
	uint64_t	bytes_described;
	uint64_t	bytes_skipped;
	char		reason[128];
};

struct sframe_gen;

struct sframe_gen *sframe_gen_new(const struct sframe_gen_input *in,
				  struct sframe_gen_stats *stats,
				  char *err, size_t err_size);
size_t sframe_gen_size(const struct sframe_gen *gen);
void sframe_gen_emit(const struct sframe_gen *gen, void *buf, uint64_t buf_addr);
void sframe_gen_free(struct sframe_gen *gen);

#endif /* _SFRAME_GEN_H */
