// Breadth-first search over rows: strings of 'A', 'B' and '.', trimmed (first and last cell hold a coin).
#include <deque>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>
using namespace std;

static string trimmed(const string &row) {
    size_t first = row.find_first_not_of('.'), last = row.find_last_not_of('.');
    return row.substr(first, last - first + 1);
}

static bool isGoal(const string &row) {
    return row.find('.') == string::npos &&
           (row.find("AB") == string::npos || row.find("BA") == string::npos);
}

// The pair row[i], row[i+1] moves left (step -1) or right (+1); false if the move is not legal.
static bool move(const string &row, int i, int step, string &out) {
    int n = row.size();
    char a = row[i], b = row[i + 1];
    if (a == '.' || b == '.' || a == b) return false;
    string cells = ".." + row + "..";  // the landing cells may lie beyond either end
    int p = i + 2;                     // the pair's first cell in `cells`
    int j;
    if (step == 1) {
        if (i + 2 >= n || row[i + 2] == '.') return false;
        j = p + 2;
        while (cells[j] != '.') j++;  // the first cell beyond the block
        if (cells[j + 1] != '.') return false;
        cells[j] = a;
        cells[j + 1] = b;
    } else {
        if (i == 0 || row[i - 1] == '.') return false;
        j = p - 1;
        while (cells[j] != '.') j--;
        if (cells[j - 1] != '.') return false;
        cells[j - 1] = a;
        cells[j] = b;
    }
    cells[p] = cells[p + 1] = '.';
    out = trimmed(cells);
    return true;
}

int main() {
    string start;
    cin >> start;
    unordered_map<string, string> parent;
    parent[start] = "";
    deque<string> queue{start};
    while (!queue.empty()) {
        string row = queue.front();
        queue.pop_front();
        if (isGoal(row)) {
            vector<string> path;
            for (string at = row; !at.empty(); at = parent[at]) path.push_back(at);
            for (size_t k = path.size(); k-- > 0;) cout << path[k] << '\n';
            return 0;
        }
        for (int i = 0; i + 1 < (int)row.size(); i++) {
            for (int step : {-1, 1}) {
                string next;
                if (move(row, i, step, next) && !parent.count(next)) {
                    parent[next] = row;
                    queue.push_back(next);
                }
            }
        }
    }
    cout << "impossible\n";
    return 0;
}
