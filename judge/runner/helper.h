/* Shared between helper.c (the launcher, the fork server) and boxserver.c (the fast sandbox). */
#ifndef JUDGE_HELPER_H
#define JUDGE_HELPER_H

/* Run one program as described by the launcher's command line (see helper.c). */
int launcher_main(int argc, char **argv);

/* -B: the per-slot box server (see boxserver.c). */
int box_server(int argc, char **argv);

#endif
