/* Memory, function style in C (IOI 2010 signatures): the greedy strategy, right to left. */
#include "grader.h"

void play(void) {
    int single[26] = {0}; /* letter -> position of its only seen card, 0 = none */
    int next = 50;        /* cards above it have all been turned */
    while (next >= 1) {
        int a_pos = next--;
        char a = faceup(a_pos);
        if (single[a - 'A']) {
            faceup(single[a - 'A']);
            single[a - 'A'] = 0;
            continue;
        }
        int b_pos = next--;
        char b = faceup(b_pos);
        if (b == a) continue;
        if (single[b - 'A']) { /* take the pair completed by the 2nd card */
            faceup(b_pos);
            faceup(single[b - 'A']);
            single[b - 'A'] = 0;
        } else {
            single[b - 'A'] = b_pos;
        }
        single[a - 'A'] = a_pos;
    }
}
