// klondike, the seed's method: depth-first search over every single move (foundation moves, run moves,
// King moves), every position seen kept in a hash table keyed on a canonical position.
// Input: "solve n" + n deals, or "stats N seed". Also "count n cap" + n deals (not part of the problem:
// prints the best score found and the number of distinct positions reachable, searching to the end or
// to cap positions; the package's generators/find_deals.py uses it to look for large search spaces).
#include <algorithm>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace std;

static const char *RANKS = "A23456789TJQK";
static const char *SUITS = "SHDC";

// Cards: suit * 13 + rank - 1. The face-up part of a pile is one run base, base-1, ..., top of one suit.
struct Pos {
    int8_t down[7], base[7], top[7];  // base = top = -1: empty pile
    int8_t found[4];
};

static int piles[7][8];  // the deal's piles, bottom to top

// ---- open-addressing hash set of 128-bit keys (0 is never a key: a pile's packed value is never 0 for
// all seven piles at once, since some pile is non-empty until 52 cards are out, and then we stop) ----
struct Key {
    uint64_t a, b;
};
static vector<Key> table_;
static size_t count_ = 0;

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
static void table_clear() {
    table_.assign(size_t(1) << 12, Key{0, 0});
    count_ = 0;
}
static bool insert_raw(const Key &k) {
    size_t mask = table_.size() - 1;
    size_t h = mix(k.a ^ mix(k.b)) & mask;
    while (table_[h].a | table_[h].b) {
        if (table_[h].a == k.a && table_[h].b == k.b) return false;
        h = (h + 1) & mask;
    }
    table_[h] = k;
    count_++;
    return true;
}
static bool insert(const Key &k) {
    if ((count_ + 1) * 2 > table_.size()) {
        vector<Key> old;
        old.swap(table_);
        table_.assign(old.size() * 2, Key{0, 0});
        count_ = 0;
        for (const Key &o : old)
            if (o.a | o.b) insert_raw(o);
    }
    return insert_raw(k);
}

// Canonical key: piles with face-down cards keep their place (those cards identify them); the values of
// the other piles are sorted and put back into those piles' places in order.
static Key key_of(const Pos &p) {
    uint16_t v[7], freev[7];
    int freeslot[7], nf = 0;
    for (int i = 0; i < 7; i++) {
        v[i] = (uint16_t)(((p.down[i] & 15) << 12) | (((p.base[i] + 1) & 63) << 6) | ((p.top[i] + 1) & 63));
        if (!p.down[i]) {
            freev[nf] = v[i];
            freeslot[nf++] = i;
        }
    }
    for (int j = 1; j < nf; j++)  // insertion sort: at most 7 values
        for (int k = j; k > 0 && freev[k - 1] > freev[k]; k--) swap(freev[k - 1], freev[k]);
    for (int j = 0; j < nf; j++) v[freeslot[j]] = freev[j];
    uint64_t a = 0, b = 0;
    for (int i = 0; i < 4; i++) a = (a << 16) | v[i];
    for (int i = 4; i < 7; i++) b = (b << 16) | v[i];
    b |= uint64_t(1) << 63;  // never the empty marker
    return Key{a, b};
}

static void expose(Pos &p, int i) {
    if (p.down[i]) {
        p.down[i]--;
        int8_t c = (int8_t)piles[i][(int)p.down[i]];
        p.base[i] = p.top[i] = c;
    } else {
        p.base[i] = p.top[i] = -1;
    }
}

static int score(const Pos &p) { return p.found[0] + p.found[1] + p.found[2] + p.found[3]; }

static int best_;
static bool stop_at_52_;
static size_t cap_ = SIZE_MAX;  // "count": stop after this many positions

static void dfs(const Pos &p) {
    if ((best_ == 52 && stop_at_52_) || count_ >= cap_) return;
    if (!insert(key_of(p))) return;
    best_ = max(best_, score(p));
    int empty = -1;
    for (int i = 0; i < 7; i++)
        if (p.base[i] < 0) {
            empty = i;
            break;
        }
    for (int i = 0; i < 7; i++) {
        int t = p.top[i];
        if (t < 0) continue;
        // the top card to its foundation
        if (p.found[t / 13] == t % 13) {
            Pos q = p;
            q.found[t / 13]++;
            if (t == q.base[i]) expose(q, i);
            else q.top[i] = (int8_t)(t + 1);
            dfs(q);
        }
        int b = p.base[i];
        if (b % 13 != 12) {
            // the run based at b onto the top b+1 of another pile
            for (int j = 0; j < 7; j++)
                if (j != i && p.top[j] == b + 1) {
                    Pos q = p;
                    q.top[j] = q.top[i];
                    expose(q, i);
                    dfs(q);
                }
        } else if (empty >= 0 && p.down[i]) {
            // a King-based run over face-down cards to an empty pile
            Pos q = p;
            q.base[empty] = q.base[i];
            q.top[empty] = q.top[i];
            expose(q, i);
            dfs(q);
        }
    }
}

struct Result {
    int score;
    size_t positions;
};

static Result solve(const int deal[52], bool stop_at_52) {
    Pos p;
    for (int i = 0; i < 7; i++) {
        int n = 0;
        for (int k = i; k < 52; k += 7) piles[i][n++] = deal[k];
        p.down[i] = (int8_t)(n - 1);
        p.base[i] = p.top[i] = (int8_t)piles[i][n - 1];
    }
    memset(p.found, 0, sizeof p.found);
    table_clear();
    best_ = 0;
    stop_at_52_ = stop_at_52;
    dfs(p);
    return Result{best_, count_};
}

static int parse_card(const string &s) {
    const char *r = strchr(RANKS, s[0]);
    const char *u = strchr(SUITS, s[1]);
    return int(u - SUITS) * 13 + int(r - RANKS);
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
            for (int i = 51; i > 0; i--) {  // Fisher-Yates: uniform
                int j = (int)uniform_int_distribution<int>(0, i)(rng);
                swap(deal[i], deal[j]);
            }
            double s = solve(deal, true).score;
            sum += s;
            sum2 += s * s;
        }
        double mean = sum / n;
        double var = max(0.0, sum2 / n - mean * mean);
        printf("%.6f %.6f\n", mean, sqrt(var));
        return 0;
    }
    int n;
    cin >> n;
    bool count = cmd == "count";
    if (count) cin >> cap_;
    for (int g = 0; g < n; g++) {
        int deal[52];
        for (int i = 0; i < 52; i++) {
            string s;
            cin >> s;
            deal[i] = parse_card(s);
        }
        Result r = solve(deal, !count);
        if (count) printf("%d %zu\n", r.score, r.positions);
        else printf("%d\n", r.score);
    }
    return 0;
}
