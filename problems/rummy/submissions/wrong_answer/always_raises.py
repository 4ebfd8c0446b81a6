# WRONG: crashes with an exception every time. An uncaught Python exception exits with status 1,
# which is a normal exit and so the answer "not layable": half of every test group is layable.
raise RuntimeError("I always crash")
