#include <stdio.h>
/* Try to create every path given; exit 0 if none could be created. */
int main(int argc, char **argv) {
    int wrote = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "w");
        if (f) { fputs("pwned\n", f); fclose(f); printf("WROTE %s\n", argv[i]); wrote = 1; }
    }
    if (!wrote) puts("nothing writable");
    return wrote;
}
