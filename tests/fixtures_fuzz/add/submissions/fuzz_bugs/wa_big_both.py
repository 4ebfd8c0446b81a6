# Wrong as soon as both numbers exceed 100: the smallest such input is "101 101".
a, b = map(int, input().split())
print(a + b + (1 if a > 100 and b > 100 else 0))
