#include <stdio.h>
#include <unistd.h>
/* Double-fork a daemon that outlives us; it writes its pid into the box, then sleeps. */
int main(void) {
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            FILE *f = fopen("daemon.pid", "w");
            fprintf(f, "%d", (int)getpid());
            fclose(f);
            sleep(1000);
        }
        _exit(0);
    }
    usleep(300000);
    printf("main exits; uid %d\n", (int)getuid());
    return 0;
}
