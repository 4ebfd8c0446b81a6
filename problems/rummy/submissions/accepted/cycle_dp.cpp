// Rummy numbers by a DP over the cycle that models the runs directly (see layable_dp in
// reference/rummy.py). State at a number: (a1, a2) = runs there on their 1st and 2nd card; the
// other a3 = n - a1 - a2 runs have 3 or more cards. Young runs must go on; any c <= a3 old runs go
// on; the rest of the next number's cards start runs. Per a1 only the least reachable a2 matters.
// The state at the number with the fewest cards is guessed and must come back after one round.
#include <algorithm>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 14) return 2;
    const int K = 13, INF = 1 << 29;
    int raw[K];
    for (int i = 0; i < K; i++) raw[i] = std::atoi(argv[i + 1]);
    int cut = int(std::min_element(raw, raw + K) - raw);
    int n[K];
    for (int t = 0; t < K; t++) n[t] = raw[(cut + t) % K];
    for (int g1 = 0; g1 <= n[0]; g1++) {
        for (int g2 = 0; g1 + g2 <= n[0]; g2++) {
            std::vector<int> least(n[0] + 1, INF);
            least[g1] = g2;
            for (int t = 1; t < K; t++) {
                int cur = n[t - 1], nw = n[t];
                std::vector<int> next(nw + 1, INF);
                int b1 = std::max(0, nw - cur);
                for (int a1 = 0; a1 <= cur; a1++) {
                    if (least[a1] == INF) continue;
                    int hi = nw - a1 - least[a1];
                    for (; b1 <= hi; b1++) next[b1] = a1;
                }
                least.swap(next);
            }
            if (g2 < (int)least.size() && least[g2] != INF &&
                std::max(0, n[0] - n[K - 1]) <= g1 && g1 <= n[0] - g2 - least[g2])
                return 0;
        }
    }
    return 1;
}
