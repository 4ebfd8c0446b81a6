// Memory, stand-alone C++ speaking the line protocol: the greedy strategy, odd positions first.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

static char turn(int position) {
    std::cout << position << std::endl;  // endl flushes
    std::string answer;
    if (!(std::cin >> answer) || answer == "0") std::exit(1);
    return answer[0];
}

int main() {
    std::vector<int> order;
    for (int i = 1; i <= 50; i += 2) order.push_back(i);
    for (int i = 2; i <= 50; i += 2) order.push_back(i);
    int single[26] = {0};
    int pairs_left = 25;
    size_t next = 0;
    while (pairs_left > 0) {
        int a_pos = order[next++];
        char a = turn(a_pos);
        if (single[a - 'A']) {
            turn(single[a - 'A']);
            single[a - 'A'] = 0;
            pairs_left--;
            continue;
        }
        int b_pos = order[next++];
        char b = turn(b_pos);
        if (b == a) {
            pairs_left--;
            continue;
        }
        if (single[b - 'A']) {
            turn(b_pos);
            turn(single[b - 'A']);
            single[b - 'A'] = 0;
            pairs_left--;
        } else {
            single[b - 'A'] = b_pos;
        }
        single[a - 'A'] = a_pos;
    }
    std::string end;
    std::cin >> end;
    return end == "END" ? 0 : 1;
}
