#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
/* kill -9 -1: start a child first, then kill everything we may; report that we survived. */
int main(void) {
    pid_t c = fork();
    if (c == 0) { sleep(1000); _exit(0); }
    kill(-1, SIGKILL);
    int st;
    waitpid(c, &st, 0);
    printf("survived; child killed: %s\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "True" : "False");
    return 0;
}
