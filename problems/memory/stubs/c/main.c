/* Main program for function-style C submissions of `memory` (the judge supplies it; the submission is
   compiled with it as solution.c). faceup() speaks the problem's line protocol on stdin/stdout. */
#include <stdio.h>
#include <stdlib.h>

#include "grader.h"

static int pairs_left = 25;
static char first = 0; /* letter of the 1st card of the current turn, 0 = none */

char faceup(int C) {
    char line[64];
    char letter;
    if (pairs_left == 0 || C < 1 || C > 50) return 0;
    printf("%d\n", C);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) exit(0); /* the oracle has stopped */
    letter = line[0];
    if (letter < 'A' || letter > 'Y') return 0; /* "0": invalid flip */
    if (!first) {
        first = letter;
    } else {
        if (letter == first) pairs_left--;
        first = 0;
    }
    if (pairs_left == 0 && !fgets(line, sizeof line, stdin)) exit(0); /* END */
    return letter;
}

int main(void) {
    play();
    return 0;
}
