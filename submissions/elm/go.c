/* Problem go, accepted (C): the board as one base-3 number, converted to base 256 by hand
 * (schoolbook multiply-add / divide on a 72-byte big-endian buffer). 72 bytes on every position. */
#include <stdio.h>
#include <string.h>

#define N 19
#define POINTS (N * N)
#define NBYTES 72

static unsigned char buf[1 << 16];

static size_t read_all(void) {
    size_t len = 0, got;
    while ((got = fread(buf + len, 1, sizeof buf - len, stdin)) > 0) len += got;
    return len;
}

static int digit_of(char ch) { return ch == 'B' ? 1 : ch == 'W' ? 2 : 0; }

int main(void) {
    static const char symbols[] = ".BW";
    size_t len = read_all();
    unsigned char num[NBYTES];
    memset(num, 0, sizeof num);
    if (len >= 7 && memcmp(buf, "ENCODE\n", 7) == 0) {
        size_t pos = 7;
        for (int p = 0; p < POINTS; p++) {
            while (pos < len && buf[pos] != '.' && buf[pos] != 'B' && buf[pos] != 'W') pos++;
            unsigned carry = pos < len ? (unsigned)digit_of((char)buf[pos++]) : 0;
            for (int i = NBYTES - 1; i >= 0; i--) { /* num = num * 3 + digit */
                unsigned v = num[i] * 3u + carry;
                num[i] = (unsigned char)(v & 0xFF);
                carry = v >> 8;
            }
        }
        fwrite(num, 1, NBYTES, stdout);
    } else { /* "DECODE\n" then the raw bytes to EOF */
        size_t n = len > 7 ? len - 7 : 0;
        if (n > NBYTES) n = NBYTES;
        memcpy(num + (NBYTES - n), buf + 7, n);
        char board[POINTS];
        for (int p = POINTS - 1; p >= 0; p--) { /* num, digit = divmod(num, 3) */
            unsigned rem = 0;
            for (int i = 0; i < NBYTES; i++) {
                unsigned v = (rem << 8) | num[i];
                num[i] = (unsigned char)(v / 3);
                rem = v % 3;
            }
            board[p] = symbols[rem];
        }
        for (int r = 0; r < N; r++) {
            fwrite(board + r * N, 1, N, stdout);
            putchar('\n');
        }
    }
    return 0;
}
