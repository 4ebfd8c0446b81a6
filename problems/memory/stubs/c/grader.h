/* Function-style C and C++ submissions of `memory` (IOI 2010 signatures). Write `void play(void)`; turn cards
   with `faceup(C)`, C in 1..50: it returns the letter 'A'..'Y', or 0 when the flip is invalid (a card
   that left the game, the 1st card of the current turn again, C outside 1..50, or after the game is
   over). Do not use stdin/stdout (they talk to the oracle); stderr is yours. */
#ifndef MEMORY_GRADER_H
#define MEMORY_GRADER_H
char faceup(int C);
void play(void);
#endif
