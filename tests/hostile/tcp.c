#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
/* Exit 0 if a TCP connection to 127.0.0.1:PORT fails (good), 1 if it works. */
int main(int argc, char **argv) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) { puts("blocked: socket"); return 0; }
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(atoi(argv[1]));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) { puts("blocked: connect"); return 0; }
    puts("CONNECTED");
    return 1;
}
