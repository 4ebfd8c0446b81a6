block = bytearray(4 * 1024**3)  # zero-filled: every page is touched
print(len(block))
