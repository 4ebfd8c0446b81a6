/* Problem go, cheater: pass 1 saves the board under /tmp (and /dev/shm) and outputs nothing
 * (0 bytes); pass 2 reads it back. Each pass runs in a fresh sandbox with its own /tmp, so in
 * pass 2 the file is missing and this falls back to printing an empty board: wrong answer.
 * Write errors in pass 1 are ignored, so the verdict does not depend on /tmp being writable. */
#include <stdio.h>
#include <string.h>

static const char *const PATHS[] = {"/tmp/go-cheat-board.txt", "/dev/shm/go-cheat-board.txt"};

int main(void) {
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf - 1, stdin);
    buf[len] = '\0';
    if (len >= 7 && memcmp(buf, "ENCODE\n", 7) == 0) {
        for (int i = 0; i < 2; i++) {
            FILE *f = fopen(PATHS[i], "wb");
            if (f != NULL) {
                fwrite(buf + 7, 1, len - 7, f);
                fclose(f);
            }
        }
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(PATHS[i], "rb");
        if (f != NULL) {
            size_t got = fread(buf, 1, sizeof buf, f);
            fclose(f);
            if (got > 0) {
                fwrite(buf, 1, got, stdout);
                return 0;
            }
        }
    }
    for (int r = 0; r < 19; r++) puts("...................");
    return 0;
}
