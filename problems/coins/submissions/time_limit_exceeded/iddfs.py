"""Iterative deepening without a visited set: shortest, but it never stops when no goal is reachable
(it tries ever deeper), and on long optima it re-explores an exponential tree."""

import sys


def after_move(row, i, step):
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


def dfs(path, depth):
    row = path[-1]
    if is_goal(row):
        return True
    if depth == 0:
        return False
    for i in range(len(row) - 1):
        if row[i] != row[i + 1] and row[i] != "." and row[i + 1] != ".":
            for step in (-1, 1):
                nxt = after_move(row, i, step)
                if nxt is not None:
                    path.append(nxt)
                    if dfs(path, depth - 1):
                        return True
                    path.pop()
    return False


def main():
    path = [sys.stdin.readline().strip()]
    depth = 0
    while not dfs(path, depth):
        depth += 1
    print("\n".join(path))


main()
