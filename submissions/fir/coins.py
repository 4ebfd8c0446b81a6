# Demo contest, hostile contestant: a memory bomb. It grabs memory 64 MiB at a time (and touches every
# page so that it is really used) until something stops it. The judge's memory limit does: MLE, and
# the machine and the other contestants' runs never notice.
chunks = []
while True:
    chunks.append(bytearray(64 * 1024 * 1024))
    for i in range(0, len(chunks[-1]), 4096):
        chunks[-1][i] = 1
