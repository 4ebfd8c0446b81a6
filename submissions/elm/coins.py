"""Coins: shortest sequence of moves, found by searching every row in order of distance."""

import sys
from collections import deque


def jump(state, k, d):
    """State after the two coins at k, k+1 jump in direction d (+1 right, -1 left), or None."""
    x, y = state[k], state[k + 1]
    if d == 1:
        if k + 2 >= len(state) or state[k + 2] == ".":
            return None
        hole = state.find(".", k + 2)
        if hole == -1:
            return (state[:k] + ".." + state[k + 2 :] + x + y).lstrip(".")
        if state[hole + 1] != ".":
            return None
        return (state[:k] + ".." + state[k + 2 : hole] + x + y + state[hole + 2 :]).lstrip(".")
    if k == 0 or state[k - 1] == ".":
        return None
    hole = state.rfind(".", 0, k)
    if hole == -1:
        return (x + y + state[:k] + ".." + state[k + 2 :]).rstrip(".")
    if state[hole - 1] != ".":
        return None
    return (state[: hole - 1] + x + y + state[hole + 1 : k] + ".." + state[k + 2 :]).rstrip(".")


def done(state):
    return "." not in state and ("AB" not in state or "BA" not in state)


def solve():
    begin = sys.stdin.readline().strip()
    prev = {begin: None}
    todo = deque([begin])
    while todo:
        state = todo.popleft()
        if done(state):
            steps = []
            while state is not None:
                steps.append(state)
                state = prev[state]
            print("\n".join(reversed(steps)))
            return
        for k in range(len(state) - 1):
            if state[k] != state[k + 1] and state[k] != "." and state[k + 1] != ".":
                for d in (-1, 1):
                    after = jump(state, k, d)
                    if after is not None and after not in prev:
                        prev[after] = state
                        todo.append(after)
    print("impossible")


solve()
