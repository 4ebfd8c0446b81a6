/* Demo contest, hostile contestant: infinite output. It never answers; it writes 64 KiB blocks to its
   standard output for ever. The judge stops it at the output limit (OLE) and nothing else fills up. */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char block[1 << 16];
    memset(block, '9', sizeof block);
    for (;;) fwrite(block, 1, sizeof block, stdout);
}
