#include <stdio.h>
int main(void) {
    for (int i = 0; i < 100000; i++) fputs("garbage \x01\x7f not a number\n", stdout);
    fflush(stdout);
    int c;
    while ((c = getchar()) != EOF) {
    }
    return 0;
}
