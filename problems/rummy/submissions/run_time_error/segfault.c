/* Dies by a signal (SIGSEGV) after reading the counts: a signal is never an answer, it is RTE. */
#include <stdlib.h>

int main(int argc, char **argv) {
    volatile int *p = NULL;
    long total = 0;
    for (int i = 1; i < argc; i++) total += atol(argv[i]);
    *p = (int)total;
    return 0;
}
