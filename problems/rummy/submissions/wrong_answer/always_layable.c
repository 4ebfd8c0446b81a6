/* WRONG: answers "layable" every time. Each test group is half layable, half not. */
int main(void) { return 0; }
