#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The layout sframe-gen --output promises, checked on an input and its
# copy: every input byte kept but the ELF header's e_phoff, e_shoff,
# e_phnum and e_shnum; the old program headers kept in order with one
# read-only PT_LOAD after the last PT_LOAD (64 KiB aligned, above every
# segment, offset congruent to its address) holding the new table and
# PT_GNU_SFRAME's bytes; PT_PHDR describing the new table; a .sframe
# section header (when there are section headers) matching PT_GNU_SFRAME.
# Prints one line a problem; with --extract FILE writes PT_GNU_SFRAME's
# bytes there and prints their address.
#
#   gen-output-check.py ORIG COPY [--extract FILE]
import struct
import sys

PT_LOAD, PT_PHDR, PT_GNU_SFRAME = 1, 6, 0x6474E554
SHT_GNU_SFRAME, SHF_ALLOC = 0x6FFFFFF4, 2
PAGE = 0x10000


def parse(data):
    end = "<" if data[5] == 1 else ">"
    eh = struct.unpack_from(end + "HHIQQQIHHHHHH", data, 16)
    (_, _, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum,
     shstrndx) = eh
    phdrs = [struct.unpack_from(end + "IIQQQQQQ", data, phoff + i * phentsize)
             for i in range(phnum)]
    shdrs = []
    if shoff:
        if shnum == 0:
            shnum = struct.unpack_from(end + "Q", data, shoff + 32)[0]
        shdrs = [struct.unpack_from(end + "IIQQQQIIQQ", data, shoff + i * shentsize)
                 for i in range(shnum)]
    return dict(end=end, phoff=phoff, shoff=shoff, phdrs=phdrs, shdrs=shdrs,
                shstrndx=shstrndx, phentsize=phentsize)


def name(data, e, sh):
    strtab = e["shdrs"][e["shstrndx"]]
    off = strtab[4] + sh[0]
    return data[off:data.index(b"\0", off)].decode()


def main():
    orig = open(sys.argv[1], "rb").read()
    copy = open(sys.argv[2], "rb").read()
    errs = []
    o, c = parse(orig), parse(copy)

    # Bytes kept: all but the four header fields that move
    masked = bytearray(copy[:len(orig)])
    for lo, hi in ((0x20, 0x30), (0x38, 0x3A), (0x3C, 0x3E)):
        masked[lo:hi] = orig[lo:hi]
    if bytes(masked) != orig:
        errs.append("input bytes changed")

    loads = [i for i, p in enumerate(o["phdrs"]) if p[0] == PT_LOAD]
    last = loads[-1]
    want = o["phdrs"][:last + 1] + [None] + o["phdrs"][last + 1:] + [None]
    if len(c["phdrs"]) != len(want):
        errs.append("%d program headers, want %d" % (len(c["phdrs"]), len(want)))
        print("\n".join(errs))
        return 1
    seg, sf = c["phdrs"][last + 1], c["phdrs"][-1]
    top = max(p[3] + p[6] for p in o["phdrs"])
    if seg[0] != PT_LOAD or seg[1] != 4 or seg[7] != PAGE:
        errs.append("new PT_LOAD: type %#x flags %#x align %#x" % (seg[0], seg[1], seg[7]))
    if seg[2] % PAGE or seg[3] % PAGE or seg[3] < top or seg[3] != seg[4]:
        errs.append("new PT_LOAD at offset %#x vaddr %#x (segments end at %#x)"
                    % (seg[2], seg[3], top))
    if seg[5] != seg[6] or seg[2] + seg[5] > len(copy) or seg[2] < len(orig):
        errs.append("new PT_LOAD size %#x/%#x at %#x" % (seg[5], seg[6], seg[2]))
    # The table also where the ELF header's mapping puts it (glibc's static
    # start-up, kernels before 5.18): address - offset of the first PT_LOAD
    first = o["phdrs"][loads[0]]
    base = (first[3] - first[2]) % (1 << 64)
    if base % PAGE == 0 and (seg[3] - seg[2]) % (1 << 64) != base:
        errs.append("new PT_LOAD's address - offset %#x, the first's %#x"
                    % (seg[3] - seg[2], base))
    if c["phoff"] != seg[2]:
        errs.append("e_phoff %#x is not the new PT_LOAD's start" % c["phoff"])
    if sf[0] != PT_GNU_SFRAME or sf[1] != 4 or sf[7] != 8 or sf[5] != sf[6]:
        errs.append("PT_GNU_SFRAME: type %#x flags %#x align %#x" % (sf[0], sf[1], sf[7]))
    if not (seg[2] <= sf[2] and sf[2] + sf[5] <= seg[2] + seg[5] and
            sf[3] - seg[3] == sf[2] - seg[2] and sf[3] % 8 == 0):
        errs.append("PT_GNU_SFRAME not inside the new PT_LOAD")
    if sf[2] < c["phoff"] + len(want) * c["phentsize"]:
        errs.append("PT_GNU_SFRAME overlaps the program headers")
    for i, (w, g) in enumerate(zip(want, c["phdrs"])):
        if w is None:
            continue
        if w[0] == PT_PHDR:
            size = len(want) * c["phentsize"]
            if g[:2] != w[:2] or g[2:7] != (seg[2], seg[3], seg[3], size, size) or \
               g[7] != w[7]:
                errs.append("PT_PHDR does not describe the new table: %r" % (g,))
        elif g != w:
            errs.append("program header %d changed" % i)

    if o["shdrs"]:
        if c["shdrs"][:-1] != [s if i != o["shstrndx"] else c["shdrs"][i]
                               for i, s in enumerate(o["shdrs"])]:
            errs.append("old section headers changed")
        s = c["shdrs"][-1]
        if len(c["shdrs"]) != len(o["shdrs"]) + 1 or name(copy, c, s) != ".sframe":
            errs.append("no .sframe section header appended")
        elif (s[1], s[2], s[3], s[4], s[5], s[8]) != \
                (SHT_GNU_SFRAME, SHF_ALLOC, sf[3], sf[2], sf[5], 8):
            errs.append(".sframe section header does not match PT_GNU_SFRAME: %r" % (s,))
        for so, sc in zip(o["shdrs"], c["shdrs"]):
            if name(orig, o, so) != name(copy, c, sc):
                errs.append("section name %s lost" % name(orig, o, so))
    elif c["shdrs"]:
        errs.append("section headers appeared")

    if len(sys.argv) > 4 and sys.argv[3] == "--extract":
        open(sys.argv[4], "wb").write(copy[sf[2]:sf[2] + sf[5]])
        print(hex(sf[3]))
    if errs:
        print("\n".join(errs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
