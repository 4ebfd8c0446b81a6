/* Memory: numbers the cards 0..49 instead of 1..50 (card 0 is out of range: a protocol violation). */
#include <stdio.h>

int main(void) {
    char line[16];
    for (int i = 0; i < 50; i++) {
        printf("%d\n", i);
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin)) return 0;
    }
    return 0;
}
