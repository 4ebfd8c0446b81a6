# Crashes when the sum exceeds 1000: the smallest such input is "0 1001".
a, b = map(int, input().split())
assert a + b <= 1000, "sum too large"
print(a + b)
