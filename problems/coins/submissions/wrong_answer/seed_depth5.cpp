// The seed's program (shared/seeds/004_..., "동전 이동 게임의 풀이 알고리즘"), compiled as C++.
// Its move(), isSeperated() and solve() are unchanged, comments translated; the seed hard-codes the
// start ABABA and a search depth of 5. Adapted only in its input and output:
//  - the start row is read from the input and placed between 12 spaces on each side (the seed's
//    "        ABABA          " has 8 and 10: enough for five coins, but with seven or more its
//    search writes past the end of the string);
//  - solve() records the rows instead of printing them, and main() prints them start-to-goal
//    (the seed prints them goal-first, as the recursion unwinds), '.' for an empty cell, trimmed.
// It prints nothing when its depth-5 search fails.
#include <iostream>
#include <string>
#include <vector>
using namespace std;

static vector<string> found;  // the rows, goal first (the order in which the seed printed them)

static bool move(string &coins, int i)
{
    int dir = i % 2; // 0 = left, 1 = right
    i = i / 2;
    if(coins[i] == ' ' || coins[i + 1] == ' ' || coins[i] == coins[i + 1])
    {
        return false; // not a pair of unlike coins
    }
    if( dir == 0 ) // left
    {
        if( coins[ i - 1] == ' ') // no coin next to the pair: cannot move
        {
            return false;
        }
        else
        {
            string::size_type j = i - 2;
            while( coins[j] != ' ' && j > 1) {j --;}
            coins[j - 1] = coins[i];
            coins[j] = coins[i + 1];
            coins[i] = ' ';
            coins[i + 1] = ' ';
        }
    }
    else
    {
        if( coins[i + 2] == ' ') // no coin next to the pair: cannot move
        {
            return false;
        }
        else
        {
            string::size_type j = i + 3;
            while(coins[j] != ' ' && j < coins.size() - 1) {j ++;}
            coins[j] = coins[i];
            coins[j + 1] = coins[i + 1];
            coins[i] = ' ';
            coins[i + 1] = ' ';
        }
    }
    return true;
}

static bool isSeperated(string coins)
{
    int first = 0, last = coins.size() - 1;
    while(coins[first] == ' ') {first ++;}
    while(coins[last] == ' ') {last --;}
    if(coins[first] == coins[last] ) return false; // one face at both ends: not separated
    int i = first + 1, j = last - 1;
    while(coins[i] == coins[first] || coins[i] == ' '){i ++;}
    while(coins[j] == coins[last] || coins[j] == ' '){j --;}
    if( i != j + 1) return false;
    return true; // the faces change once (gaps are not looked at)
}

bool solve(string coins, int depth)
{
    string coins2 = coins;
    int first = 0;
    int last = coins.size() - 1;
    while(coins[first] == ' ') {first ++;}
    while(coins[last] == ' ') {last --;}

    for( int i = 2 * first; i < 2 * (last - 1); i++ )
    {
        if( move(coins, i) )
        {
            depth --; // one move used
            if( isSeperated(coins) )
            {
                // separated: record the row
                found.push_back(coins);
                return true;
            }
            else if( depth != 0 && solve(coins, depth) )
            {
                found.push_back(coins);
                return true;
            }
            else
            {
                // no luck: undo the move, try the next one
                coins = coins2;
                depth ++;
                continue;
            }
        }
    }
    // no move leads to a separated row within the depth
    return false;
}

static string shown(const string &coins) {
    size_t first = coins.find_first_not_of(' '), last = coins.find_last_not_of(' ');
    string row = coins.substr(first, last - first + 1);
    for (char &c : row)
        if (c == ' ') c = '.';
    return row;
}

int main()
{
    string start;
    cin >> start;
    string coins = string(12, ' ') + start + string(12, ' ');
    if(solve(coins, 5))
    {
        found.push_back(coins);
        for (size_t k = found.size(); k-- > 0;) cout << shown(found[k]) << endl;
    }
    return 0;
}
