/* aarch64 return-address signing (build with -mbranch-protection=pac-ret
   or pac-ret+b-key): FREs carry the mangled-RA bit. */
#include <stdio.h>

__attribute__((noinline)) int pac_leaf(int x) { return x + 1; }

__attribute__((noinline)) int pac_caller(int x)
{
	int r = pac_leaf(x) * 2;
	printf("%d\n", r);
	return r + pac_leaf(r);
}

int main(int argc, char **argv)
{
	(void)argv;
	return pac_caller(argc) & 1;
}
