# The judge in a container: Debian bookworm, the toolchains and the judge installed by the README's set-up.
#
#   docker build -t judge .
#   docker run --rm --init --privileged -v "$PWD/submissions:/judge/submissions" judge \
#       judge grade submissions/ --out /judge/submissions/.board
#
# The sandbox makes namespaces, mounts and cgroups inside the container; see docs/deploy.md for the
# flags this needs (--privileged, or the smaller set listed there) and what happens without them.
FROM debian:bookworm

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    PIP_NO_CACHE_DIR=1 \
    JUDGE_CACHE_DIR=/var/cache/judge

RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends python3 python3-pip ca-certificates \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /judge
COPY . /judge
# The README's set-up: toolchains and bubblewrap with apt (as root), then the judge with pip.
RUN bash .ci/setup && rm -rf /var/lib/apt/lists/*

# `judge doctor` runs a program and a validator through every start path: the first thing to try in a
# new container (it exits non-zero, naming the failure, when the sandbox cannot work there).
CMD ["judge", "doctor"]
