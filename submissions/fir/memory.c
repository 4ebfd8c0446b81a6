/* Demo contest, hostile contestant: a fork bomb. Every process forks forever. In the judge's sandbox
   the program may not have a second process, so every fork() fails and it spins until its time limit;
   nothing outside its sandbox notices. NEVER run this outside the judge's sandbox. */
#include <unistd.h>

int main(void) {
    for (;;) fork();
}
