// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function of more than 65536 bytes with calls throughout it, so FRE
 * start addresses need 4 bytes (ADDR4), plus one of a few hundred bytes
 * (ADDR2).
 */
volatile long hsink;

__attribute__((noinline)) long hleaf(long a)
{
	return a * 5 + hsink;
}

#define H(i)	hsink = hsink * 7 + (i); if (hsink & 3) hsink += hleaf(hsink);
#define H8(i)	H(i) H(i + 1) H(i + 2) H(i + 3) H(i + 4) H(i + 5) H(i + 6) H(i + 7)
#define H64(i)	H8(i) H8(i + 8) H8(i + 16) H8(i + 24) H8(i + 32) H8(i + 40) \
		H8(i + 48) H8(i + 56)
#define H512(i)	H64(i) H64(i + 64) H64(i + 128) H64(i + 192) H64(i + 256) \
		H64(i + 320) H64(i + 384) H64(i + 448)

__attribute__((noinline)) long huge_fn(long x)
{
	char buf[64];

	buf[x & 63] = x;
	hsink = buf[(x + 1) & 63];
	H512(0) H512(512) H512(1024)
	return hleaf(hsink + x);
}

__attribute__((noinline)) long addr2_fn(long x)
{
	H64(0)
	return hleaf(x);
}

int main(int argc, char **argv)
{
	(void)argv;
	return (huge_fn(argc) + addr2_fn(argc)) & 1;
}
