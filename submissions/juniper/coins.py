"""Breadth-first search that forgets the queue can run dry: when no goal is reachable it pops from
an empty deque (IndexError)."""

import sys
from collections import deque


def after_move(row, i, step):
    """The row after the pair row[i], row[i+1] moves left (step -1) or right (+1); None if illegal."""
    a, b = row[i], row[i + 1]
    if step == 1:
        if i + 2 >= len(row) or row[i + 2] == ".":
            return None
        j = row.find(".", i + 2)
        if j == -1:
            return (row[:i] + ".." + row[i + 2 :] + a + b).lstrip(".")
        if row[j + 1] != ".":
            return None
        return (row[:i] + ".." + row[i + 2 : j] + a + b + row[j + 2 :]).lstrip(".")
    if i == 0 or row[i - 1] == ".":
        return None
    j = row.rfind(".", 0, i)
    if j == -1:
        return (a + b + row[:i] + ".." + row[i + 2 :]).rstrip(".")
    if row[j - 1] != ".":
        return None
    return (row[: j - 1] + a + b + row[j + 1 : i] + ".." + row[i + 2 :]).rstrip(".")


def is_goal(row):
    return "." not in row and ("AB" not in row or "BA" not in row)


def main():
    start = sys.stdin.readline().strip()
    parent = {start: None}
    queue = deque([start])
    while True:
        row = queue.popleft()
        if is_goal(row):
            path = []
            while row is not None:
                path.append(row)
                row = parent[row]
            print("\n".join(reversed(path)))
            return
        for i in range(len(row) - 1):
            if row[i] != row[i + 1] and row[i] != "." and row[i + 1] != ".":
                for step in (-1, 1):
                    nxt = after_move(row, i, step)
                    if nxt is not None and nxt not in parent:
                        parent[nxt] = row
                        queue.append(nxt)


main()
