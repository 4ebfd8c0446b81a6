#include <stdio.h>
/* Try to open every path given; exit 0 if none could be opened. */
int main(int argc, char **argv) {
    int leaked = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f) { printf("LEAKED %s\n", argv[i]); leaked = 1; fclose(f); }
    }
    if (!leaked) puts("nothing readable");
    return leaked;
}
