/* judge-helper: the runner's tiny launcher (built on first use, see helper.py).
 *
 * It runs ONE program and reports exactly how it ended, so that the Python side
 * never needs preexec_fn (fork) and never confuses "exit 137" with "killed by 9".
 *
 *   judge-helper [-i] [-k] [-p] [-u UID] [-g GID] [-n NETNS_FD] [-s STATUS_FD] [-e FD] [-I FD] [-O FD]
 *                [-c CGROUP_PROCS_FILE]... [-r RESOURCE:SOFT:HARD]... -- ARGV...
 *
 *   -i  init mode: we are pid 1 of a fresh PID namespace (bwrap --as-pid-1): reap
 *       everything; when the program exits, kill(-1, SIGKILL) empties the namespace.
 *   -k  uid sweep: when the program exits, a child with the program's uid runs
 *       kill(-1, SIGKILL) until nothing of that uid is left (fallback backend).
 *   -p  process group kill at the end (trusted runs).
 *   -P PID  the pid of our parent as it started us (the judge, or its fork server): if our parent
 *       is no longer that process once PDEATHSIG is armed, the judge is gone and we do not start.
 *       (Without -P nothing is checked: "parent is pid 1" means nothing when the judge itself
 *       is pid 1 of a container's PID namespace.)
 *   -u/-g  drop to this uid/gid in the child (no groups, no capabilities, no_new_privs).
 *   -n  setns() into this network namespace fd before forking (optional).
 *   -x  pre-launcher: join the -c cgroups and the -n network namespace, then exec
 *       ARGV (bwrap) instead of running it as a child.
 *   -N  (alone) create an empty network namespace, print "ok", wait for EOF on stdin.
 *   -Z SOCKFD  fork server living in the slot's cgroups (see zygote() below).
 *   -B SOCKFD  box server: the fast sandbox (boxserver.c; must come first).
 *   -e  the program's stderr: dup2 this fd onto 2 in the child (our own stderr is
 *       for our and bwrap's messages).
 *   -I/-O  the program's stdin and stdout: dup2 these fds onto 0 and 1 in the child. They come at
 *       fd numbers of their own, never as our 0 and 1 (bwrap's monitor keeps its 0-2 open), and we
 *       close them (and -e) once the child is forked: the only copies of a pipe's ends are then
 *       the program's, so the other end sees end of file as soon as the program closes its own.
 *   -s  status fd: "exit <wait status> <utime us> <stime us> <maxrss KiB> <wall us> <end us>\n"
 *       (end = CLOCK_MONOTONIC when it ended, to order the two sides of an interactive run)
 *       when the program ends (with -i: together with "done", once the namespace is empty),
 *       then "done <utime us> <stime us> <maxrss KiB>\n" (all reaped descendants) just before
 *       we exit; "error <message>\n" if we
 *       could not start it (a sandbox failure, never the program's fault).
 *   -c  write the child's pid to this cgroup.procs file before it drops privileges.
 *   -A  read the program's argv (NUL-separated) from this fd instead of after "--".
 *   -r  setrlimit in the child (resource numbers as in <sys/resource.h>; -1 = infinity).
 *   -y  the nice value of the child (raised only: the judge's own work keeps its priority).
 *
 * SIGTERM to this helper: kill the program and everything it started, report, exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#define MAX_RLIMITS 16
#define MAX_CGROUPS 8

static volatile sig_atomic_t terminate_requested = 0;
static int status_fd = -1;

static void on_term(int sig) {
    (void)sig;
    terminate_requested = 1;
}

static void report(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (status_fd < 0 || n <= 0) return;
    if (n > (int)sizeof buf - 1) n = sizeof buf - 1;
    ssize_t off = 0;
    while (off < n) {
        ssize_t w = write(status_fd, buf + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        off += w;
    }
}

/* In the child: report a sandbox failure and give up. */
static void fail(const char *what) {
    report("error %s: %s\n", what, strerror(errno));
    _exit(125);
}

static pid_t start_sweep(uid_t uid, gid_t gid);

/* In the child: the program's stdin and stdout (-I, -O) become 0 and 1. */
static void child_stdio(int in_fd, int out_fd) {
    int in = in_fd >= 0 ? fcntl(in_fd, F_DUPFD_CLOEXEC, 3) : -1;
    int out = out_fd >= 0 ? fcntl(out_fd, F_DUPFD_CLOEXEC, 3) : -1;
    if ((in_fd >= 0 && in < 0) || (out_fd >= 0 && out < 0)) fail("dup");
    if (in >= 0 && dup2(in, 0) < 0) fail("dup2");
    if (out >= 0 && dup2(out, 1) < 0) fail("dup2");
}

/* In the launcher, once the child is forked: no copy of the program's standard fds stays here (our own 0
   and 1 become /dev/null), so that a pipe's reader sees end of file when the program closes its end. */
static void drop_stdio(int in_fd, int out_fd, int err_fd) {
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 1; fd++) {
        if (nul < 0) close(fd);
        else if (nul != fd) dup2(nul, fd);
    }
    if (nul > 1) close(nul);
    int mine[3] = {in_fd, out_fd, err_fd};
    for (int k = 0; k < 3; k++)
        if (mine[k] > 2 && mine[k] != status_fd) close(mine[k]);
}

static void cleanup_start(int init_mode, int uid_sweep, int pg_kill, pid_t child, long uid, long gid) {
    if (init_mode) kill(-1, SIGKILL); /* pid 1: everything else in the namespace */
    else if (uid_sweep && uid >= 0) start_sweep((uid_t)uid, (gid_t)gid);
    else if (pg_kill) kill(-child, SIGKILL);
}

static long us(struct timeval tv) { return (long)tv.tv_sec * 1000000L + tv.tv_usec; }

static long elapsed_us(const struct timespec *a, const struct timespec *b) {
    return (long)(b->tv_sec - a->tv_sec) * 1000000L + (b->tv_nsec - a->tv_nsec) / 1000;
}

/* Start a child with the program's uid that runs kill(-1, SIGKILL): that hits every
   process of this uid at once (a concurrent fork either completes before the kill and
   its child is hit too, or fails because the forking process has SIGKILL pending). Do
   not trust kill(-1)'s return value: it is 0 whenever *any* other process exists. The
   caller keeps reaping (orphans are reparented to us, the subreaper), the killer too. */
static pid_t start_sweep(uid_t uid, gid_t gid) {
    pid_t killer = fork();
    if (killer == 0) {
        if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) _exit(1);
        kill(-1, SIGKILL);
        kill(-1, SIGKILL);
        _exit(0);
    }
    return killer;
}

/* -Z SOCKFD: fork server. After joining the -c cgroups and the -n network namespace (once),
   it forks and execs whatever the judge asks for on SOCKFD (a SOCK_SEQPACKET socket), so
   that the new process starts inside the slot's cgroups without a migration per run (on
   cgroup v1 a migration waits for an RCU grace period: milliseconds on a busy machine).
   Request: u32 n, n x i32 target fd numbers, then NUL-terminated strings: cwd, argv...,
   "", env..., ""; with n fds (SCM_RIGHTS; the first is the run's status pipe). Reply: the
   child's pid (i32), or -errno. When a child ends we write "zexit <wait status>\n" to its
   status pipe and close our copy. EOF on SOCKFD (the judge is gone): exit. */
#define Z_MAX_FDS 16
#define Z_MAX_KIDS 64
#define Z_MSG 65536

struct kid {
    pid_t pid;
    int status_fd;
};

static void z_reap(struct kid *kids, int *nk) {
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0) return;
        for (int k = 0; k < *nk; k++) {
            if (kids[k].pid != p) continue;
            char line[48];
            int n = snprintf(line, sizeof line, "zexit %d\n", st);
            if (write(kids[k].status_fd, line, n) < 0) { /* the judge stopped listening */
            }
            close(kids[k].status_fd);
            kids[k] = kids[--*nk];
            break;
        }
    }
}

static void z_child(int *fds, int *targets, int nfds, char *cwd, char **av, char **ev) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int oom = open("/proc/self/oom_score_adj", O_WRONLY);
    if (oom >= 0) {
        if (write(oom, "0", 1) < 0) { /* best effort */
        }
        close(oom);
    }
    /* Copies above every target first, so that no dup2 below lands on a copy still to be used
       (the judge's fd numbers can be high: a server with many sockets). */
    int tmp[Z_MAX_FDS], base = 200;
    for (int f = 0; f < nfds; f++)
        if (targets[f] >= base) base = targets[f] + 1;
    for (int f = 0; f < nfds; f++) tmp[f] = fcntl(fds[f], F_DUPFD_CLOEXEC, base);
    for (int f = 0; f < nfds; f++) {
        if (tmp[f] < 0 || dup2(tmp[f], targets[f]) < 0) _exit(125);
    }
    if (cwd[0] && chdir(cwd) < 0) {
        dprintf(targets[0], "error chdir %s: %s\n", cwd, strerror(errno));
        _exit(125);
    }
    execve(av[0], av, ev);
    dprintf(targets[0], "error exec %s: %s\n", av[0], strerror(errno));
    _exit(125);
}

static void z_fail(int sock, const char *what, const char *where) {
    char msg[512];
    int n = snprintf(msg, sizeof msg, "error %s (%s): %s", what, where, strerror(errno));
    if (n > 0 && send(sock, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1), MSG_NOSIGNAL) < 0) {
    }
}

static int zygote(int sock) {
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) return 125;
    int oom = open("/proc/self/oom_score_adj", O_WRONLY);
    if (oom >= 0) { /* never pick us when the slot's memory runs out */
        if (write(oom, "-1000", 5) < 0) {
        }
        close(oom);
    }
    static char buf[Z_MSG];
    struct kid kids[Z_MAX_KIDS];
    int nk = 0;
    for (;;) {
        struct pollfd pf[2] = {{sock, POLLIN, 0}, {sfd, POLLIN, 0}};
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return 125;
        }
        if (pf[1].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) > 0) {
            }
            z_reap(kids, &nk);
        }
        if (!pf[0].revents) continue;
        char cbuf[CMSG_SPACE(sizeof(int) * Z_MAX_FDS)];
        struct iovec iov = {buf, sizeof buf - 1};
        struct msghdr mh = {0};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cbuf;
        mh.msg_controllen = sizeof cbuf;
        ssize_t len = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (len == 0) { /* the judge is gone: so are its runs */
            for (int k = 0; k < nk; k++) kill(kids[k].pid, SIGTERM); /* launchers clean up on TERM */
            return 0;
        }
        if (len < 0) {
            if (errno == EINTR) continue;
            return 125;
        }
        int fds[Z_MAX_FDS], nfds = 0;
        int truncated = (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (int k = 0; k < n && nfds < Z_MAX_FDS; k++) memcpy(&fds[nfds++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
            }
        }
        int32_t reply = -EINVAL;
        uint32_t n = 0;
        buf[len] = 0;
        char *av[512], *ev[512];
        int targets[Z_MAX_FDS];
        if (len >= 4) memcpy(&n, buf, 4);
        size_t off = 4 + (size_t)n * 4;
        if (truncated) reply = -EMSGSIZE;
        else if (n >= 1 && (int)n == nfds && off < (size_t)len && nk < Z_MAX_KIDS) {
            for (uint32_t k = 0; k < n; k++) memcpy(&targets[k], buf + 4 + k * 4, 4);
            char *p = buf + off, *end = buf + len;
            char *cwd = p;
            p += strlen(p) + 1;
            int na = 0, ne = 0;
            while (p < end && *p && na < 511) { av[na++] = p; p += strlen(p) + 1; }
            p++;
            while (p < end && *p && ne < 511) { ev[ne++] = p; p += strlen(p) + 1; }
            av[na] = NULL;
            ev[ne] = NULL;
            if (na > 0) {
                pid_t child = fork();
                if (child == 0) {
                    close(sock);
                    close(sfd);
                    z_child(fds, targets, nfds, cwd, av, ev);
                }
                if (child > 0) {
                    kids[nk].pid = child;
                    kids[nk].status_fd = fds[0];
                    fds[0] = -1; /* kept for "zexit" */
                    nk++;
                    reply = child;
                } else {
                    reply = -errno;
                }
            }
        }
        for (int k = 0; k < nfds; k++)
            if (fds[k] >= 0) close(fds[k]);
        if (send(sock, &reply, sizeof reply, MSG_NOSIGNAL) < 0) return 0;
    }
}

/* -N: make a fresh, empty network namespace and keep it alive until stdin closes
   (the judge opens /proc/<pid>/ns/net meanwhile and keeps that fd). */
static int make_netns(void) {
    if (unshare(CLONE_NEWNET) < 0) {
        dprintf(1, "error unshare: %s\n", strerror(errno));
        return 125;
    }
    dprintf(1, "ok\n");
    char b;
    while (read(0, &b, 1) > 0) {
    }
    return 0;
}

int launcher_main(int argc, char **argv) {
    int init_mode = 0, uid_sweep = 0, pg_kill = 0, netns_fd = -1, stderr_fd = -1, exec_mode = 0, zsock = -1;
    int args_fd = -1, niceness = 0, stdin_fd = -1, stdout_fd = -1;
    long uid = -1, gid = -1, parent = -1;
    int nrl = 0, ncg = 0;
    int rl_res[MAX_RLIMITS];
    rlim_t rl_soft[MAX_RLIMITS], rl_hard[MAX_RLIMITS];
    const char *cgroups[MAX_CGROUPS];
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-N") == 0) return make_netns();
        if (strcmp(a, "-i") == 0) init_mode = 1;
        else if (strcmp(a, "-x") == 0) exec_mode = 1;
        else if (i + 1 < argc && strcmp(a, "-Z") == 0) zsock = atoi(argv[++i]);
        else if (strcmp(a, "-k") == 0) uid_sweep = 1;
        else if (strcmp(a, "-p") == 0) pg_kill = 1;
        else if (i + 1 < argc && strcmp(a, "-u") == 0) uid = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-P") == 0) parent = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-g") == 0) gid = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-s") == 0) status_fd = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-n") == 0) netns_fd = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-e") == 0) stderr_fd = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-I") == 0) stdin_fd = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-O") == 0) stdout_fd = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-A") == 0) args_fd = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-y") == 0) niceness = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "-c") == 0 && ncg < MAX_CGROUPS) cgroups[ncg++] = argv[++i];
        else if (i + 1 < argc && strcmp(a, "-r") == 0 && nrl < MAX_RLIMITS) {
            long long r, s, h;
            if (sscanf(argv[++i], "%lld:%lld:%lld", &r, &s, &h) != 3) {
                report("error bad rlimit %s\n", argv[i]);
                return 125;
            }
            rl_res[nrl] = (int)r;
            rl_soft[nrl] = s < 0 ? RLIM_INFINITY : (rlim_t)s;
            rl_hard[nrl] = h < 0 ? RLIM_INFINITY : (rlim_t)h;
            nrl++;
        } else {
            report("error bad option %s\n", a);
            return 125;
        }
    }
    if (zsock >= 0) {
        char pidbuf[32];
        int plen = snprintf(pidbuf, sizeof pidbuf, "%d\n", (int)getpid());
        /* A failure to set up is told over the socket (the judge reads it when the socket fails). */
        for (int c = 0; c < ncg; c++) {
            int fd = open(cgroups[c], O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, pidbuf, plen) != plen) {
                z_fail(zsock, "cannot join the cgroup", cgroups[c]);
                return 124;
            }
            close(fd);
        }
        if (netns_fd >= 0) {
            if (setns(netns_fd, CLONE_NEWNET) < 0) {
                char where[32];
                snprintf(where, sizeof where, "fd %d", netns_fd);
                z_fail(zsock, "cannot join the slot's network namespace", where);
                return 124;
            }
            close(netns_fd);
        }
        return zygote(zsock);
    }
    if (i >= argc && args_fd < 0) {
        report("error no program given\n");
        return 125;
    }
    if (exec_mode) {
        /* Pre-launcher: join the cgroups and the network namespace, then become ARGV
           (bwrap), so that everything bwrap starts is accounted from the first fork. */
        char pidbuf[32];
        int plen = snprintf(pidbuf, sizeof pidbuf, "%d\n", (int)getpid());
        for (int c = 0; c < ncg; c++) {
            int fd = open(cgroups[c], O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, pidbuf, plen) != plen) {
                report("error cgroup %s: %s\n", cgroups[c], strerror(errno));
                return 125;
            }
            close(fd);
        }
        if (netns_fd >= 0) {
            if (setns(netns_fd, CLONE_NEWNET) < 0) {
                report("error setns: %s\n", strerror(errno));
                return 125;
            }
            close(netns_fd);
        }
        execvp(argv[i], argv + i);
        report("error cannot execute %s: %s\n", argv[i], strerror(errno));
        return 125;
    }
    if (args_fd >= 0) {
        /* The program's argv, NUL-separated, from a file (bwrap refuses more than 9000 arguments). */
        size_t cap = 1 << 16, len = 0;
        char *data = malloc(cap);
        ssize_t r;
        while (data && (r = read(args_fd, data + len, cap - len)) > 0) {
            len += (size_t)r;
            if (len == cap) data = realloc(data, cap *= 2);
        }
        close(args_fd);
        size_t n = 0;
        for (size_t k = 0; k < len; k++) n += data[k] == 0;
        char **av = data ? calloc(n + 1, sizeof *av) : NULL;
        if (!av || n == 0) {
            report("error cannot read the program's arguments\n");
            return 125;
        }
        for (size_t k = 0, j = 0; k < len && j < n; j++) {
            av[j] = data + k;
            k += strlen(data + k) + 1;
        }
        argv = av;
        i = 0;
    }
    if (status_fd >= 0) fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    if (gid < 0) gid = uid;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: wait4 must return EINTR */
    sigaction(SIGTERM, &sa, NULL);
    if (!init_mode) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        if (parent > 0 && getppid() != (pid_t)parent) {
            report("error the judge (pid %ld) is gone\n", parent);
            return 125;
        }
    }
    if (netns_fd >= 0) {
        if (setns(netns_fd, CLONE_NEWNET) < 0) {
            report("error setns: %s\n", strerror(errno));
            return 125;
        }
        close(netns_fd);
    }

    /* pid 1 of a box server runs SCHED_FIFO (woken at once when the program ends). It forks the
       program with the normal policy, as a normal parent, and waits until it has exec'd (as
       vfork does: the program starts at once where there is a CPU), then goes back to FIFO. */
    int realtime = sched_getscheduler(0) == SCHED_FIFO;
    struct sched_param sp_normal = {0}, sp_fifo = {1};
    int exec_pipe[2] = {-1, -1};
    if (realtime && (sched_setscheduler(0, SCHED_OTHER, &sp_normal) < 0 || pipe2(exec_pipe, O_CLOEXEC) < 0)) {
        report("error sched/pipe: %s\n", strerror(errno));
        return 125;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t child = fork();
    if (child < 0) {
        report("error fork: %s\n", strerror(errno));
        return 125;
    }
    if (child > 0) drop_stdio(stdin_fd, stdout_fd, stderr_fd);
    if (realtime && child > 0) {
        char b;
        close(exec_pipe[1]);
        while (read(exec_pipe[0], &b, 1) < 0 && errno == EINTR) {
        }
        close(exec_pipe[0]);
        sched_setscheduler(0, SCHED_FIFO, &sp_fifo);
    }
    if (child == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        signal(SIGXCPU, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (setsid() < 0) fail("setsid");
        child_stdio(stdin_fd, stdout_fd);
        if (stderr_fd >= 0 && stderr_fd != 2) {
            if (dup2(stderr_fd, 2) < 0) fail("dup2");
            close(stderr_fd);
        }
        /* Nothing but 0, 1, 2 reaches the program (the status fd is close-on-exec). */
        if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) < 0) {
            for (int fd = 3; fd < 1024; fd++)
                if (fd != status_fd) close(fd);
        }
        char pidbuf[32];
        int plen = snprintf(pidbuf, sizeof pidbuf, "%d\n", (int)getpid());
        for (int c = 0; c < ncg; c++) {
            int fd = open(cgroups[c], O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, pidbuf, plen) != plen) fail(cgroups[c]);
            close(fd);
        }
        if (niceness > 0 && setpriority(PRIO_PROCESS, 0, niceness) < 0) fail("setpriority");
        for (int r = 0; r < nrl; r++) {
            struct rlimit rl = {rl_soft[r], rl_hard[r]};
            if (setrlimit(rl_res[r], &rl) < 0) fail("setrlimit");
        }
        if (uid >= 0) {
            for (int cap = 0; cap <= 63; cap++) {
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL) break;
            }
            if (setgroups(0, NULL) < 0) fail("setgroups");
            if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) < 0) fail("setresgid");
            if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0) fail("setresuid");
            struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
            struct __user_cap_data_struct data[2];
            memset(data, 0, sizeof data);
            if (syscall(SYS_capset, &hdr, data) < 0) fail("capset");
            if (getuid() == 0 || geteuid() == 0) {
                errno = EPERM;
                fail("uid drop");
            }
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail("no_new_privs");
        execvp(argv[i], argv + i);
        int e = errno;
        dprintf(2, "judge: cannot execute %s: %s\n", argv[i], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }

    int main_status = 0, main_done = 0, cleaning = 0;
    char exit_line[256] = "";
    struct rusage main_ru;
    memset(&main_ru, 0, sizeof main_ru);
    for (;;) {
        if (terminate_requested && !cleaning) {
            kill(child, SIGKILL);
            cleanup_start(init_mode, uid_sweep, pg_kill, child, uid, gid);
            cleaning = 1;
        }
        int st;
        struct rusage ru;
        pid_t r = wait4(-1, &st, 0, &ru); /* also reaps orphans: zombies count as processes */
        if (r < 0) {
            if (errno == EINTR) continue;
            break; /* ECHILD: everything is reaped */
        }
        if (r != child || main_done) continue;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        main_status = st;
        main_ru = ru;
        main_done = 1;
        snprintf(exit_line, sizeof exit_line, "exit %d %ld %ld %ld %ld %ld\n", main_status, us(main_ru.ru_utime),
                 us(main_ru.ru_stime), main_ru.ru_maxrss, elapsed_us(&t0, &t1),
                 (long)t1.tv_sec * 1000000L + t1.tv_nsec / 1000);
        if (!init_mode) { /* pid 1 sends it with "done" (soon: one wake-up of the judge instead of two) */
            report("%s", exit_line);
            exit_line[0] = 0;
        }
        /* Everything the program left behind dies now. */
        if (!cleaning) cleanup_start(init_mode, uid_sweep, pg_kill, child, uid, gid);
        cleaning = 1;
        if (pg_kill) {
            /* Trusted programs that left their group: do not wait for them forever. */
            for (int tries = 0; tries < 200; tries++) {
                pid_t z = waitpid(-1, NULL, WNOHANG);
                if (z < 0 && errno == ECHILD) break;
                if (z == 0) usleep(5000);
            }
            break;
        }
    }
    if (init_mode) {
        /* pid 1: make sure the namespace is empty before we go (our exit would kill the
           rest anyway, but then nobody would reap them and their rusage would be lost).
           Here kill(-1) only sees our namespace, so ESRCH does mean "nobody left". */
        for (int n = 0; n < 20000; n++) {
            int k = kill(-1, SIGKILL);
            int e = errno;
            pid_t w = waitpid(-1, NULL, WNOHANG);
            if (w < 0 && errno == ECHILD && k < 0 && e == ESRCH) break;
            if (w <= 0) usleep(500);
        }
    }
    struct rusage all;
    getrusage(RUSAGE_CHILDREN, &all);
    report("%sdone %ld %ld %ld\n", exit_line, us(all.ru_utime), us(all.ru_stime), all.ru_maxrss);
    return main_done ? 0 : 125;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "-B") == 0) return box_server(argc, argv);
    return launcher_main(argc, argv);
}
