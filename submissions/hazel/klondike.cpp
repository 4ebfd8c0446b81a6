// klondike, TOO SLOW: the seed's depth-first search over every single move, but without remembering the
// positions seen. Exact, and fine on random deals, but the same position is reached by very many move
// orders (independent moves commute), so on deals with large search spaces it does not finish.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>

using namespace std;

static const char *RANKS = "A23456789TJQK";
static const char *SUITS = "SHDC";

struct Pos {
    int8_t down[7], base[7], top[7];
    int8_t found[4];
};

static int piles[7][8];
static int best_;

static void expose(Pos &p, int i) {
    if (p.down[i]) {
        p.down[i]--;
        p.base[i] = p.top[i] = (int8_t)piles[i][(int)p.down[i]];
    } else {
        p.base[i] = p.top[i] = -1;
    }
}

static void dfs(const Pos &p) {
    if (best_ == 52) return;
    best_ = max(best_, p.found[0] + p.found[1] + p.found[2] + p.found[3]);
    int empty = -1;
    for (int i = 0; i < 7; i++)
        if (p.base[i] < 0) {
            empty = i;
            break;
        }
    for (int i = 0; i < 7; i++) {
        int t = p.top[i];
        if (t < 0) continue;
        if (p.found[t / 13] == t % 13) {
            Pos q = p;
            q.found[t / 13]++;
            if (t == q.base[i]) expose(q, i);
            else q.top[i] = (int8_t)(t + 1);
            dfs(q);
        }
        int b = p.base[i];
        if (b % 13 != 12) {
            for (int j = 0; j < 7; j++)
                if (j != i && p.top[j] == b + 1) {
                    Pos q = p;
                    q.top[j] = q.top[i];
                    expose(q, i);
                    dfs(q);
                }
        } else if (empty >= 0 && p.down[i]) {
            Pos q = p;
            q.base[empty] = q.base[i];
            q.top[empty] = q.top[i];
            expose(q, i);
            dfs(q);
        }
    }
}

static int solve(const int deal[52]) {
    Pos p;
    for (int i = 0; i < 7; i++) {
        int n = 0;
        for (int k = i; k < 52; k += 7) piles[i][n++] = deal[k];
        p.down[i] = (int8_t)(n - 1);
        p.base[i] = p.top[i] = (int8_t)piles[i][n - 1];
    }
    memset(p.found, 0, sizeof p.found);
    best_ = 0;
    dfs(p);
    return best_;
}

int main() {
    ios::sync_with_stdio(false);
    string cmd;
    cin >> cmd;
    if (cmd == "stats") {
        long long n;
        unsigned long long seed;
        cin >> n >> seed;
        mt19937_64 rng(seed);
        int deal[52];
        double sum = 0, sum2 = 0;
        for (long long g = 0; g < n; g++) {
            for (int i = 0; i < 52; i++) deal[i] = i;
            for (int i = 51; i > 0; i--) swap(deal[i], deal[uniform_int_distribution<int>(0, i)(rng)]);
            double s = solve(deal);
            sum += s;
            sum2 += s * s;
        }
        double mean = sum / n;
        printf("%.6f %.6f\n", mean, sqrt(max(0.0, sum2 / n - mean * mean)));
        return 0;
    }
    int n;
    cin >> n;
    for (int g = 0; g < n; g++) {
        int deal[52];
        for (int i = 0; i < 52; i++) {
            string s;
            cin >> s;
            deal[i] = int(strchr(SUITS, s[1]) - SUITS) * 13 + int(strchr(RANKS, s[0]) - RANKS);
        }
        printf("%d\n", solve(deal));
        fflush(stdout);
    }
    return 0;
}
