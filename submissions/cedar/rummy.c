/* WRONG: exact for the numbers 1..13 on a line, but forgets that 13 is followed by 1 again,
   so a run such as 12 13 1 is never used. */
#include <stdlib.h>

int main(int argc, char **argv) {
    long n[17] = {0}, d[17] = {0};  /* two numbers without cards on each side */
    if (argc != 14) return 2;
    for (int i = 0; i < 13; i++) n[i + 2] = atol(argv[i + 1]);
    for (int i = 1; i < 17; i++) d[i] = n[i] > n[i - 1] ? n[i] - n[i - 1] : 0;
    for (int i = 2; i < 17; i++)
        if (d[i - 2] + d[i - 1] + d[i] > n[i]) return 1;
    return 0;
}
