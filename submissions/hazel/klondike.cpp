// Wetherell's solitaire, hazel's try: brute force. Try every legal move from every position, undo it,
// try the next -- no memory of positions already searched. The answer is exact, and random deals are
// over in a few moves, but a deal with many independent moves is searched once per order of those
// moves: exponential, far over the time limit (TLE) on the big solve deals and on stats N = 10000.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>

// A card is suit * 16 + rank, rank 1 (ace) .. 13 (king): the card a run can go onto is card + 1.
static inline int rank_of(int c) { return c & 15; }
static inline int suit_of(int c) { return c >> 4; }

struct Game {
    int cards[7][24];  // bottom to top
    int height[7];     // cards in the pile
    int hidden[7];     // of which face down (the bottom ones)
    int home[4];       // highest rank on each suit's foundation
    int out;           // cards on the foundations
};

static Game g;
static int record;

// Turn the new top card face up if it is face down; says whether it did.
static bool flip(int p) {
    if (g.height[p] > 0 && g.hidden[p] == g.height[p]) {
        g.hidden[p]--;
        return true;
    }
    return false;
}

static bool search();

// Moves cards [from, height) of pile p onto pile q, recurses, and puts everything back.
static bool shift_and_search(int p, int from, int q) {
    int n = g.height[p] - from;
    for (int k = 0; k < n; k++) g.cards[q][g.height[q] + k] = g.cards[p][from + k];
    g.height[q] += n;
    g.height[p] = from;
    bool turned = flip(p);
    bool done = search();
    if (turned) g.hidden[p]++;
    g.height[q] -= n;  // the deeper moves may have written over p's old places: copy the run back
    for (int k = 0; k < n; k++) g.cards[p][from + k] = g.cards[q][g.height[q] + k];
    g.height[p] += n;
    return done;
}

// True once all 52 are out: nothing can beat that, the caller stops.
static bool search() {
    if (g.out > record) record = g.out;
    if (record == 52) return true;
    int hole = 0;
    while (hole < 7 && g.height[hole] != 0) hole++;
    for (int p = 0; p < 7; p++) {
        if (g.height[p] == 0) continue;
        int top = g.cards[p][g.height[p] - 1];
        if (rank_of(top) == g.home[suit_of(top)] + 1) {
            g.height[p]--;
            g.home[suit_of(top)]++;
            g.out++;
            bool turned = flip(p);
            bool done = search();
            if (turned) g.hidden[p]++;
            g.out--;
            g.home[suit_of(top)]--;
            g.cards[p][g.height[p]++] = top;
            if (done) return true;
        }
        int low = g.hidden[p];
        int bottom = g.cards[p][low];
        if (rank_of(bottom) == 13) {
            if (hole < 7 && low > 0 && shift_and_search(p, low, hole)) return true;
            continue;
        }
        for (int q = 0; q < 7; q++) {
            if (q == p || g.height[q] == 0) continue;
            if (g.cards[q][g.height[q] - 1] == bottom + 1 && shift_and_search(p, low, q)) return true;
        }
    }
    return false;
}

static int best_score(const int deal[52]) {
    for (int p = 0; p < 7; p++) g.height[p] = 0;
    for (int k = 0; k < 52; k++) {
        int p = k % 7;
        g.cards[p][g.height[p]++] = deal[k];
    }
    for (int p = 0; p < 7; p++) g.hidden[p] = g.height[p] - 1;
    for (int s = 0; s < 4; s++) g.home[s] = 0;
    g.out = 0;
    record = 0;
    search();
    return record;
}

static int read_card(const std::string &word) {
    static const std::string ranks = "A23456789TJQK", suits = "SHDC";
    return int(suits.find(word[1])) * 16 + int(ranks.find(word[0])) + 1;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string mode;
    std::cin >> mode;
    int deal[52];
    if (mode == "solve") {
        int deals;
        std::cin >> deals;
        while (deals-- > 0) {
            for (int &c : deal) {
                std::string word;
                std::cin >> word;
                c = read_card(word);
            }
            printf("%d\n", best_score(deal));
            fflush(stdout);
        }
        return 0;
    }
    long long trials;
    unsigned long long seed;
    std::cin >> trials >> seed;
    std::mt19937_64 gen(seed);
    long long tally[53] = {0};
    for (long long t = 0; t < trials; t++) {
        int deck[52];
        for (int i = 0; i < 52; i++) deck[i] = i;
        for (int i = 51; i >= 1; i--) {
            std::uniform_int_distribution<int> pick(0, i);
            std::swap(deck[i], deck[pick(gen)]);
        }
        for (int i = 0; i < 52; i++) deal[i] = (deck[i] / 13) * 16 + deck[i] % 13 + 1;
        tally[best_score(deal)]++;
    }
    double mean = 0, square = 0;
    for (int s = 0; s <= 52; s++) {
        mean += double(s) * tally[s];
        square += double(s) * s * tally[s];
    }
    mean /= trials;
    square /= trials;
    printf("%.6f %.6f\n", mean, std::sqrt(std::max(0.0, square - mean * mean)));
    return 0;
}
