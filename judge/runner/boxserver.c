/* The box server (judge-helper -B): the fast path of the namespace sandbox.
 *
 * bwrap builds a whole sandbox per run (~3 ms of CPU: an exec, namespaces, a dozen mounts,
 * pivot_root). The box server does the expensive part ONCE per uid slot and keeps it:
 *
 *   judge-helper -B SOCKFD -R DIR -D DEVDIR [-c CGROUP_PROCS]... [-n NETNS_FD]
 *                [-L LINK:TARGET]... [-b SYSTEM_DIR]... [-P]
 *
 * -P: the server and each run's pid 1 (not the program) run SCHED_FIFO (see below).
 *
 * At start it joins the slot's cgroups and empty network namespace, makes its own UTS
 * namespace (hostname "judge") and mount namespace, and builds there a small read-only
 * tree S on a tmpfs: /usr, /etc (and non-symlink /lib*, /bin, /sbin: -b) bound read-only,
 * nosuid, nodev; the ready-made /dev (-D); an empty /r. It pivot_root()s into S and
 * detaches the host's tree: nothing of the host (no /work, no /root, no /proc) is left in
 * its mount namespace. Then it answers "ok" (or "error <why>") on SOCKFD.
 *
 * Per run (request format as the fork server's, see helper.c; argv here is
 *   [-x BOXFD] [-m FD:ro|rw:TARGET]... [-t TMP_BYTES] -- LAUNCHER-ARGV...
 * where the fds are detached mounts made by open_tree(OPEN_TREE_CLONE) in the judge) it
 * clone()s a child in new mount, PID and IPC namespaces. The child (pid 1 there) mounts
 * a fresh tmpfs root at /r, binds S's directories into it, mounts a fresh /proc and a
 * fresh size-capped /tmp, attaches the box at /box and the run's extra mounts, remounts
 * the root read-only, chroot()s into it (its namespace holds nothing else but S, a
 * subset of what it shows) and becomes the launcher (launcher_main in init mode): it
 * forks the program, drops it to the slot's uid, reports, kills and reaps everything.
 * The reply is the child's pid (for SIGTERM/SIGKILL from the judge). The server keeps no
 * copy of the run's status pipe: the judge sees EOF when pid 1 is gone. It reaps each pid 1
 * when it ends (SIGCHLD), and before the next run waits until the previous one is reaped (so
 * the slot's pids cgroup holds only the server); a request of four zero bytes only does that
 * (before the slot is used another way).
 * EOF on SOCKFD (the judge is gone): SIGTERM every pid 1 (they kill their namespaces;
 * they also have PDEATHSIG = SIGKILL) and exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#define B_MOUNT_ATTR_RDONLY 0x00000001
#define B_MOUNT_ATTR_NOSUID 0x00000002
#define B_MOUNT_ATTR_NODEV 0x00000004
#define B_AT_RECURSIVE 0x8000

struct b_mount_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#define B_MAX_SYS 16
#define B_MAX_FDS 16
#define B_MAX_KIDS 16
#define B_MSG 65536

extern char **environ;

static const char *sys_links[B_MAX_SYS][2]; /* /bin -> usr/bin */
static const char *sys_binds[B_MAX_SYS];    /* /lib64 (not a symlink here) */
static int n_links, n_binds;

static int setup_error(int sock, const char *what) {
    char msg[512];
    int n = snprintf(msg, sizeof msg, "error %s: %s", what, strerror(errno));
    if (send(sock, msg, n, MSG_NOSIGNAL) < 0) { /* the judge is gone */
    }
    return 124;
}

static int bind_ro(const char *src, const char *dst, int dev) {
    unsigned long fl = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | (dev ? 0 : MS_NODEV);
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0) return -1;
    return mount(NULL, dst, NULL, fl, NULL);
}

/* Make S (see above) at dir and pivot_root into it. */
static int build_root(int sock, const char *dir, const char *devdir) {
    char p[4096];
    if (unshare(CLONE_NEWNS | CLONE_NEWUTS) < 0) return setup_error(sock, "unshare");
    if (sethostname("judge", 5) < 0) return setup_error(sock, "sethostname");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) return setup_error(sock, "make-rprivate");
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=256") < 0)
        return setup_error(sock, "tmpfs");
    const char *dirs[] = {"usr", "etc", "dev", "r", "old"};
    for (unsigned k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, dirs[k]);
        if (mkdir(p, 0755) < 0) return setup_error(sock, p);
    }
    snprintf(p, sizeof p, "%s/usr", dir);
    if (bind_ro("/usr", p, 0) < 0) return setup_error(sock, "bind /usr");
    snprintf(p, sizeof p, "%s/etc", dir);
    if (bind_ro("/etc", p, 0) < 0) return setup_error(sock, "bind /etc");
    snprintf(p, sizeof p, "%s/dev", dir);
    if (bind_ro(devdir, p, 1) < 0) return setup_error(sock, "bind /dev");
    for (int k = 0; k < n_binds; k++) {
        snprintf(p, sizeof p, "%s%s", dir, sys_binds[k]);
        if (mkdir(p, 0755) < 0 || bind_ro(sys_binds[k], p, 0) < 0) return setup_error(sock, sys_binds[k]);
    }
    if (chdir(dir) < 0) return setup_error(sock, "chdir");
    if (syscall(SYS_pivot_root, ".", "old") < 0) return setup_error(sock, "pivot_root");
    if (chdir("/") < 0 || umount2("/old", MNT_DETACH) < 0) return setup_error(sock, "detach the host");
    if (rmdir("/old") < 0) return setup_error(sock, "rmdir /old");
    if (mount(NULL, "/", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        return setup_error(sock, "remount / read-only");
    return 0;
}

/* ---- per run, in the child (pid 1 of the new PID namespace) ---- */

static int status_target = -1;

static void child_fail(const char *what, const char *arg) {
    if (status_target >= 0) dprintf(status_target, "error box %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    _exit(125);
}

static void mkdirs(char *path) { /* mkdir -p, 0755 (inside the run's fresh root) */
    for (char *s = path + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(path, 0755) < 0 && errno != EEXIST) child_fail("mkdir", path);
        *s = '/';
    }
}

static void attach(int fd, const char *target, int readonly) {
    char p[4096];
    struct stat st;
    if (snprintf(p, sizeof p, "/r%s", target) >= (int)sizeof p || target[0] != '/') {
        errno = ENAMETOOLONG;
        child_fail("mount target", target);
    }
    if (fstat(fd, &st) < 0) child_fail("fstat", target);
    mkdirs(p);
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(p, 0755) < 0 && errno != EEXIST) child_fail("mkdir", p);
    } else {
        int f = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (f < 0 && errno != EEXIST && errno != EROFS) child_fail("create", p);
        if (f >= 0) close(f);
    }
    /* private: a clone of a shared host mount would be its peer (mounts would propagate) */
    struct b_mount_attr a = {B_MOUNT_ATTR_NOSUID | B_MOUNT_ATTR_NODEV | (readonly ? B_MOUNT_ATTR_RDONLY : 0), 0,
                             MS_PRIVATE, 0};
    if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | B_AT_RECURSIVE, &a, sizeof a) < 0)
        child_fail("mount_setattr", target);
    if (syscall(SYS_move_mount, fd, "", AT_FDCWD, p, MOVE_MOUNT_F_EMPTY_PATH) < 0) child_fail("move_mount", target);
    close(fd);
}

static void box_child(int *fds, int *targets, int nfds, char **av, char **ev) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Copies above every target first, so that no dup2 below lands on a copy still to be used
       (the judge's fd numbers can be high: a server with many sockets). */
    int tmp[B_MAX_FDS], base = 200;
    for (int f = 0; f < nfds; f++)
        if (targets[f] >= base) base = targets[f] + 1;
    for (int f = 0; f < nfds; f++) tmp[f] = fcntl(fds[f], F_DUPFD_CLOEXEC, base);
    for (int f = 0; f < nfds; f++) {
        if (tmp[f] < 0 || dup2(tmp[f], targets[f]) < 0) _exit(125);
    }
    for (int f = 0; f < nfds; f++) {
        close(tmp[f]);
        int used = 0;
        for (int g = 0; g < nfds; g++) used |= fds[f] == targets[g];
        if (!used) close(fds[f]);
    }
    status_target = targets[0];
    char *tmp_opts = "mode=1777,size=16m";
    char tmp_buf[64];
    int box_fd = -1, i = 0;
    for (; av[i]; i++) {
        if (strcmp(av[i], "--") == 0) {
            i++;
            break;
        }
        if (av[i + 1] == NULL) child_fail("bad request", av[i]);
        if (strcmp(av[i], "-x") == 0) box_fd = atoi(av[++i]);
        else if (strcmp(av[i], "-t") == 0) {
            snprintf(tmp_buf, sizeof tmp_buf, "mode=1777,size=%lld", atoll(av[++i]));
            tmp_opts = tmp_buf;
        } else if (strcmp(av[i], "-m") != 0) child_fail("bad request", av[i]);
        else i++; /* mounts: below, once the root exists */
    }
    if (box_fd < 0 || !av[i]) child_fail("bad request", "no box");
    if (mount("tmpfs", "/r", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=1024") < 0)
        child_fail("tmpfs", "/r");
    const char *dirs[] = {"/r/usr", "/r/etc", "/r/dev", "/r/proc", "/r/tmp", "/r/box"};
    for (unsigned k = 0; k < sizeof dirs / sizeof *dirs; k++)
        if (mkdir(dirs[k], 0755) < 0) child_fail("mkdir", dirs[k]);
    char p[4096];
    for (int k = 0; k < n_links; k++) {
        snprintf(p, sizeof p, "/r%s", sys_links[k][0]);
        if (symlink(sys_links[k][1], p) < 0) child_fail("symlink", p);
    }
    /* S's mounts are read-only, nosuid, nodev already; a bind copies that. */
    if (mount("/usr", "/r/usr", NULL, MS_BIND | MS_REC, NULL) < 0) child_fail("bind", "/usr");
    if (mount("/etc", "/r/etc", NULL, MS_BIND | MS_REC, NULL) < 0) child_fail("bind", "/etc");
    if (mount("/dev", "/r/dev", NULL, MS_BIND, NULL) < 0) child_fail("bind", "/dev");
    for (int k = 0; k < n_binds; k++) {
        snprintf(p, sizeof p, "/r%s", sys_binds[k]);
        if (mkdir(p, 0755) < 0 || mount(sys_binds[k], p, NULL, MS_BIND | MS_REC, NULL) < 0)
            child_fail("bind", sys_binds[k]);
    }
    if (mount("proc", "/r/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) child_fail("mount", "/proc");
    if (mount("tmpfs", "/r/tmp", "tmpfs", MS_NOSUID | MS_NODEV, tmp_opts) < 0) child_fail("mount", "/tmp");
    int oom = open("/r/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC); /* the server's is -1000 */
    if (oom < 0 || write(oom, "0", 1) != 1) child_fail("oom_score_adj", NULL);
    close(oom);
    attach(box_fd, "/box", 0);
    for (int k = 0; av[k] && strcmp(av[k], "--") != 0; k++) {
        if (strcmp(av[k], "-m") != 0) continue;
        char *spec = av[++k];
        char *c1 = strchr(spec, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) child_fail("bad mount", spec);
        *c1 = *c2 = 0;
        attach(atoi(spec), c2 + 1, strcmp(c1 + 1, "ro") == 0);
    }
    if (mount(NULL, "/r", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        child_fail("remount", "/r");
    if (chdir("/r") < 0 || chroot(".") < 0 || chdir("/box") < 0) child_fail("chroot", NULL);
    environ = ev;
    int argc = 0;
    char **largv = av + i - 1; /* launcher argv: "--" stands in for argv[0] */
    while (largv[argc]) argc++;
    _exit(launcher_main(argc, largv));
}

/* ---- the server ---- */

struct bkid {
    pid_t pid;
};

static void reap(struct bkid *kids, int *nk, int block_ms) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
            for (int k = 0; k < *nk; k++)
                if (kids[k].pid == p) {
                    kids[k] = kids[--*nk];
                    break;
                }
        }
        if (*nk == 0 || block_ms <= 0) return;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long waited = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (waited >= block_ms) return;
        usleep(200);
    }
}

int box_server(int argc, char **argv) {
    int sock = -1, netns_fd = -1;
    const char *dir = NULL, *devdir = NULL, *cgroups[8];
    int ncg = 0, realtime = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-P") == 0) {
            realtime = 1;
            continue;
        }
        if (i + 1 >= argc) return 125;
        const char *a = argv[i], *v = argv[i + 1];
        if (strcmp(a, "-B") == 0) sock = atoi(v);
        else if (strcmp(a, "-R") == 0) dir = v;
        else if (strcmp(a, "-D") == 0) devdir = v;
        else if (strcmp(a, "-n") == 0) netns_fd = atoi(v);
        else if (strcmp(a, "-c") == 0 && ncg < 8) cgroups[ncg++] = v;
        else if (strcmp(a, "-b") == 0 && n_binds < B_MAX_SYS) sys_binds[n_binds++] = v;
        else if (strcmp(a, "-L") == 0 && n_links < B_MAX_SYS) {
            char *c = strchr(argv[i + 1], ':');
            if (!c) return 125;
            *c = 0;
            sys_links[n_links][0] = v;
            sys_links[n_links++][1] = c + 1;
        } else return 125;
        i++;
    }
    if (sock < 0 || !dir || !devdir) return 125;
    /* No parent-death signal here: it fires when the judge *thread* that started us ends. The
       judge's death closes SOCKFD instead. */
    char pidbuf[32];
    int plen = snprintf(pidbuf, sizeof pidbuf, "%d\n", (int)getpid());
    for (int c = 0; c < ncg; c++) {
        int fd = open(cgroups[c], O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, pidbuf, plen) != plen) return setup_error(sock, cgroups[c]);
        close(fd);
    }
    if (netns_fd >= 0) {
        if (setns(netns_fd, CLONE_NEWNET) < 0) return setup_error(sock, "setns");
        close(netns_fd);
    }
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom >= 0) { /* never pick us when the slot's memory runs out */
        if (write(oom, "-1000", 5) < 0) {
        }
        close(oom);
    }
    if (realtime) {
        /* We and each run's pid 1 work for microseconds and then sleep: as SCHED_FIFO we get the
           CPU at once when woken, instead of waiting behind the machine's load. The program is
           forked by pid 1 while it is back on the normal policy (launcher_main), so it is an
           ordinary task from its first instruction on. Best effort. */
        struct sched_param sp = {1};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) { /* not allowed here: normal policy */
        }
    }
    int rc = build_root(sock, dir, devdir);
    if (rc != 0) return rc;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    /* Readable once we have exited: our children check it after setting their parent-death signal. */
    int self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (self_pidfd >= 0) fcntl(self_pidfd, F_SETFD, FD_CLOEXEC);
    if (send(sock, "ok", 2, MSG_NOSIGNAL) < 0) return 0;
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK); /* reap each pid 1 when it is gone */
    static char buf[B_MSG];
    struct bkid kids[B_MAX_KIDS];
    int nk = 0;
    for (;;) {
        struct pollfd pf[2] = {{sock, POLLIN, 0}, {sfd, POLLIN, 0}};
        if (poll(pf, sfd >= 0 ? 2 : 1, -1) < 0) {
            if (errno == EINTR) continue;
            return 125;
        }
        if (sfd >= 0 && pf[1].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) > 0) {
            }
            reap(kids, &nk, 0);
        }
        if (!pf[0].revents) continue;
        char cbuf[CMSG_SPACE(sizeof(int) * B_MAX_FDS)];
        struct iovec iov = {buf, sizeof buf - 1};
        struct msghdr mh = {0};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cbuf;
        mh.msg_controllen = sizeof cbuf;
        ssize_t len = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (len == 0) { /* the judge is gone: so are its runs */
            reap(kids, &nk, 0);
            for (int k = 0; k < nk; k++) kill(kids[k].pid, SIGTERM);
            reap(kids, &nk, 2000); /* (orphans would be reaped by init: not everywhere) */
            return 0;
        }
        if (len < 0) {
            if (errno == EINTR) continue;
            return 125;
        }
        int fds[B_MAX_FDS], nfds = 0;
        int truncated = (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (int k = 0; k < n && nfds < B_MAX_FDS; k++)
                    memcpy(&fds[nfds++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
            }
        }
        /* The previous run's pid 1 has closed its fds (the judge saw EOF) and is leaving. */
        reap(kids, &nk, 2000);
        int32_t reply = -EINVAL;
        uint32_t n = 0;
        buf[len] = 0;
        char *av[512], *ev[512];
        int targets[B_MAX_FDS];
        if (len >= 4) memcpy(&n, buf, 4);
        size_t off = 4 + (size_t)n * 4;
        if (truncated) reply = -EMSGSIZE;
        else if (n == 0 && nfds == 0 && len == 4) reply = nk; /* "sync": the previous pid 1 is reaped */
        else if (nk >= B_MAX_KIDS) reply = -EAGAIN;
        else if (n >= 1 && (int)n == nfds && off < (size_t)len) {
            for (uint32_t k = 0; k < n; k++) memcpy(&targets[k], buf + 4 + k * 4, 4);
            char *p = buf + off, *end = buf + len;
            p += strlen(p) + 1; /* cwd: unused */
            int na = 0, ne = 0;
            while (p < end && *p && na < 511) { av[na++] = p; p += strlen(p) + 1; }
            p++;
            while (p < end && *p && ne < 511) { ev[ne++] = p; p += strlen(p) + 1; }
            av[na] = NULL;
            ev[ne] = NULL;
            if (na > 0) {
                pid_t child = (pid_t)syscall(SYS_clone, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | SIGCHLD, 0, 0, 0, 0);
                if (child == 0) {
                    prctl(PR_SET_PDEATHSIG, SIGKILL);
                    struct pollfd pf = {self_pidfd, POLLIN, 0};
                    if (self_pidfd >= 0 && poll(&pf, 1, 0) != 0) _exit(125); /* the server died meanwhile */
                    close(self_pidfd);
                    close(sfd);
                    close(sock);
                    box_child(fds, targets, nfds, av, ev);
                }
                if (child > 0) {
                    kids[nk++].pid = child;
                    reply = child;
                } else {
                    reply = -errno;
                }
            }
        }
        for (int k = 0; k < nfds; k++) close(fds[k]);
        if (send(sock, &reply, sizeof reply, MSG_NOSIGNAL) < 0) return 0;
    }
}
