#include <stdio.h>
#include <stdlib.h>
int main(void) {
    size_t n = (size_t)4 << 30;
    volatile char *p = malloc(n);
    if (!p) return 3;
    for (size_t i = 0; i < n; i += 4096) p[i] = (char)i; /* touch every page */
    printf("%d\n", p[n - 4096]);
    return 0;
}
