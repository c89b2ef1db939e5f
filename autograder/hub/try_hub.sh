#!/usr/bin/env bash
# Try the course on a JupyterHub of its own, on a TEST machine, as root.
#
#   bash autograder/hub/try_hub.sh start    # users, exchange, course, hub on http://127.0.0.1:8765
#   bash autograder/hub/try_hub.sh stop     # stop the hub, unmount the students' disks, remove the users and run/
#   bash autograder/hub/try_hub.sh install  # only build the environment and the proxy
#   bash autograder/hub/try_hub.sh purge    # stop, and remove $TOKHUB_PREFIX (the venv too)
#
# `start` does, in order (autograder/README.md, "With JupyterHub", explains each step):
#  1. builds $TOKHUB_PREFIX/venv from autograder/hub/requirements.txt (no tokref: students
#     run their servers from it; the instructor's server finds tokref in the private course's
#     solutions/), with the grading kernel's venv/kernel (autograder/kernel-requirements.txt),
#     readable by every user, and $TOKHUB_PREFIX/proxy (configurable-http-proxy, `npm ci`
#     with its cache in $TOKHUB_PREFIX/npm-cache); both are reused while their inputs do not
#     change;
#  2. creates three Linux users, tokhub-instructor, tokhub-alice and tokhub-bob (homes 0700,
#     random passwords set with chpasswd and written to run/state/passwords, root only);
#     each student's home is on a disk of its own: an ext4 image of $TOKHUB_STUDENT_DISK
#     (run/disks/<student>.img, loop-mounted at run/users/<student>/, mode 0711), whose home/
#     is bound on /home/<student> and whose inbound/ (the student's, group the instructor's,
#     2770) the student's server sees as the exchange's inbound: home and submissions
#     together cannot outgrow the image (this kernel has no quotas; a real server uses
#     usrquota: autograder/README.md);
#  3. makes the exchange, run/exchange, mode 1777 (sticky: only its owner may rename or
#     delete an entry), with exchange/tokenization made for the instructor (0755) before any
#     student could (outbound 0755, feedback 0711, inbound 3733: setgid and sticky; nbgrader's
#     release leaves the mode of a directory that exists), and
#     run/etc/jupyter/nbgrader_config.py (Exchange.root, course_id),
#     which the hub's servers find through JUPYTER_CONFIG_PATH (a real hub: /etc/jupyter/),
#     and run/etc/profile.d/tokenization.sh (PATH and JUPYTER_CONFIG_PATH for login shells:
#     JupyterLab's terminals and `su -` run `bash -l`, and Debian's /etc/profile resets PATH),
#     which each user's ~/.profile sources (a real hub: /etc/profile.d/);
#  4. copies this working tree's course files (git ls-files) to ~tokhub-instructor/tokenization,
#     owned by the instructor, mode 0700, with .venv -> $TOKHUB_PREFIX/venv, writes the
#     instructor's ~/.jupyter/nbgrader_config.py (the course's root, and the students' own
#     inbound directories for collect: CheckedExchangeCollect.extra_inbound) and runs
#     autograder/release.py as the
#     instructor (the gradebook learns the assignments);
#  5. disables the formgrader and "Create Assignment" for each student: `jupyter labextension
#     disable --level=user` (nbgrader's way) and the user's jupyter_server_config.d file
#     that `jupyter server extension disable --user` would write (it fails: see below);
#  6. starts the hub (jupyterhub_config.py beside this script: each user's server in a
#     capped cgroup, the instructor's delegated to them, 1 CPU per student, and a mount
#     namespace of its own: private size-capped /tmp, /var/tmp, /dev/shm; for a student the
#     exchange read-only but for their inbound) and waits for it.
#
# stop is idempotent and also cleans up after a killed run: it kills the hub and the users'
# processes, unmounts whatever is mounted under run/ or on the users' homes (lazily when
# busy), detaches the images' loop devices, removes the servers' leftover cgroups, the
# users and run/.
#
# Settings (environment): TOKHUB_PREFIX (/opt/tokhub), TOKHUB_PORT (8765; the hub also uses
# the next two ports), TOKHUB_PYTHON (/usr/bin/python3: any Python >= 3.10 that every user
# can run), TOKHUB_ASSIGNMENTS (what release.py generates: empty for all of source/),
# TOKHUB_STUDENT_MEMORY (2G) and TOKHUB_INSTRUCTOR_MEMORY (8G): each server's memory cap;
# TOKHUB_STUDENT_CPUS (1): each student's CPU cap; TOKHUB_STUDENT_DISK (256M): each student's
# disk (home and submissions); TOKHUB_STUDENT_TMPFS (256M) and TOKHUB_INSTRUCTOR_TMPFS (2G):
# the size of each server's own /tmp, /var/tmp and /dev/shm.
# Every account it makes has the comment "tokhub test account (autograder/hub/try_hub.sh)";
# stop removes only those.
set -euo pipefail

PREFIX=${TOKHUB_PREFIX:-/opt/tokhub}
PORT=${TOKHUB_PORT:-8765}
PY=${TOKHUB_PYTHON:-/usr/bin/python3}
ASSIGNMENTS=${TOKHUB_ASSIGNMENTS:-}
INSTRUCTOR=tokhub-instructor
STUDENTS="tokhub-alice tokhub-bob"
COURSE_ID=tokenization
MARK="tokhub test account (autograder/hub/try_hub.sh)"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VENV=$PREFIX/venv
RUN=$PREFIX/run
STATE=$RUN/state
CONFIG=$RUN/etc/jupyter
PROFILE=$RUN/etc/profile.d/tokenization.sh
PROXY=$PREFIX/proxy
EXCHANGE=$RUN/exchange
DISKS=$RUN/disks   # <student>.img: each student's disk image
USERS=$RUN/users   # <student>/: where it is mounted (home/, inbound/)
DISK_SIZE=${TOKHUB_STUDENT_DISK:-256M}

say() { printf 'try_hub: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

home_of() { getent passwd "$1" | cut -d: -f6; }

# Run a command as a user, in a directory (default: the user's home), with the environment
# the hub gives the user's server.
as_user() {
    local user=$1 dir=$2; shift 2
    local home; home=$(home_of "$user")
    (cd "${dir:-$home}" && runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" \
        SHELL=/bin/bash LANG=C.UTF-8 PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin" \
        JUPYTER_CONFIG_PATH="$CONFIG" "$@")
}

ours() {  # whether the account exists and is one of ours
    [ "$(getent passwd "$1" | cut -d: -f5)" = "$MARK" ]
}

need_root() {
    [ "$(id -u)" -eq 0 ] || die "run me as root (I create users and start the hub as root)"
    for cmd in useradd userdel chpasswd runuser getent setsid mkfs.ext4 losetup findmnt; do
        command -v "$cmd" >/dev/null || die "$cmd is missing"
    done
}

# ---------------------------------------------------------------------------------------
# install: $PREFIX/venv and node_modules, reused while their inputs are unchanged
# ---------------------------------------------------------------------------------------
deps_hash() {  # what the environment's packages depend on
    { "$PY" -c 'import sys; print(sys.version)'
      cat "$HERE/requirements.txt" "$REPO/autograder/kernel-requirements.txt"
    } | sha256sum | cut -d' ' -f1
}

quiet_pip() {  # pip's output less its notes on index locations that do not exist
    grep -v "is ignored: it is neither a file nor a directory" >&2 || true
}

do_install() {
    command -v npm >/dev/null || die "the proxy needs Node.js and npm: apt-get install -y nodejs npm"
    runuser -u nobody -- "$PY" -c 'import sys; assert sys.version_info >= (3, 10)' 2>/dev/null || die \
        "$PY must be a Python >= 3.10 that every user can run (a pyenv Python under /root is not): set TOKHUB_PYTHON"
    "$PY" -c 'import venv, ensurepip' 2>/dev/null || die "$PY has no venv module: apt-get install -y python3-venv"
    mkdir -p "$PREFIX"
    chmod 755 "$PREFIX"
    local lock; lock=$(cat "$HERE/package.json" "$HERE/package-lock.json" | sha256sum | cut -d' ' -f1)
    if [ "$(cat "$PROXY/node_modules/.tokhub-lock" 2>/dev/null)" != "$lock" ]; then
        say "npm ci (configurable-http-proxy) in $PROXY"
        rm -rf "$PROXY" && mkdir -p "$PROXY"
        cp "$HERE/package.json" "$HERE/package-lock.json" "$PROXY/"
        # npm's cache and logs in $PREFIX too: nothing of it in root's ~/.npm
        (cd "$PROXY" && npm_config_cache="$PREFIX/npm-cache" npm_config_update_notifier=false \
            npm ci --no-audit --no-fund --loglevel=error)
        echo "$lock" > "$PROXY/node_modules/.tokhub-lock"
    fi
    local deps
    deps=$(deps_hash)
    if [ "$(cat "$VENV/.tokhub-deps" 2>/dev/null)" != "$deps" ]; then
        say "building $VENV (the hub, nbgrader; no tokref) and $VENV/kernel (the grading kernel)"
        rm -rf "$VENV"
        "$PY" -m venv "$VENV"
        # pip's cache in $PREFIX: nothing of it in root's ~/.cache
        PIP_CACHE_DIR="$PREFIX/pip-cache" "$VENV/bin/python" -m pip install --quiet \
            --disable-pip-version-check -r "$HERE/requirements.txt" 2>&1 | quiet_pip
        "$PY" -m venv "$VENV/kernel"
        PIP_CACHE_DIR="$PREFIX/pip-cache" "$VENV/kernel/bin/python" -m pip install --quiet \
            --disable-pip-version-check -r "$REPO/autograder/kernel-requirements.txt" 2>&1 | quiet_pip
        echo "$deps" > "$VENV/.tokhub-deps"
    fi
    # An environment built by an earlier version of this script had tokref in it.
    "$VENV/bin/python" -m pip uninstall --quiet --yes tokref >/dev/null 2>&1 || true
    chmod -R u+rwX,go+rX,go-w "$VENV"
}

# ---------------------------------------------------------------------------------------
# stop: the hub, the users' processes, the users, run/
# ---------------------------------------------------------------------------------------
kill_pid_file() {  # kill the process whose pid the file holds, if it is still running
    local file=$1 pid
    [ -f "$file" ] || return 0
    pid=$(cat "$file")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null || true
}

do_stop() {
    # The hub stops the users' servers and its proxy when it gets SIGTERM.
    kill_pid_file "$STATE/hub.pid"
    kill_pid_file "$STATE/proxy.pid"
    local user pids
    for user in $INSTRUCTOR $STUDENTS; do
        getent passwd "$user" >/dev/null || continue
        if ! ours "$user"; then
            say "$user exists and is not one of mine: left alone"
            continue
        fi
        pids=$(ps -o pid= -u "$user" || true)
        if [ -n "$pids" ]; then
            kill -TERM $pids 2>/dev/null || true
            sleep 1
            pids=$(ps -o pid= -u "$user" || true)
            [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
        fi
    done
    release_disks
    remove_groups
    for user in $INSTRUCTOR $STUDENTS; do
        ours "$user" || continue
        userdel -r "$user" 2>/dev/null || userdel -f -r "$user" 2>/dev/null || say "could not remove $user"
        rm -rf "/home/$user"
    done
    forget_users
    rm -rf "$RUN"
}

# Unmount what start mounted (and what a killed run left): the students' homes, their disks
# under $RUN, deepest first; a busy mount lazily (it goes with its last user). Then the
# loop devices of the images. Fails rather than let `rm -rf $RUN` walk into a mounted disk.
release_disks() {
    local m img dev user
    for user in $STUDENTS; do
        for _ in 1 2 3; do  # a start run twice may have stacked two binds
            mountpoint -q "/home/$user" || break
            umount "/home/$user" 2>/dev/null || umount -l "/home/$user" || true
        done
    done
    for m in $(findmnt -rn -o TARGET | grep -E "^$RUN/" | sort -r || true); do
        umount "$m" 2>/dev/null || umount -l "$m" || true
    done
    for img in "$DISKS"/*.img; do
        [ -e "$img" ] || continue
        for dev in $(losetup -n -O NAME -j "$img"); do losetup -d "$dev" 2>/dev/null || true; done
    done
    if findmnt -rn -o TARGET | grep -qE "^$RUN/|^/home/tokhub-"; then
        die "still mounted under $RUN or /home/tokhub-*: $(findmnt -rn -o TARGET | grep -E "^$RUN/|^/home/tokhub-" | tr '\n' ' ')"
    fi
}

# The servers' groups, when the hub was killed before it could remove them: what is left
# in them is killed, and they are removed, inner groups first, once the kernel has reaped
# their processes (a few tries).
remove_groups() {
    local d groups
    for _ in $(seq 1 20); do
        groups=$(find /sys/fs/cgroup -maxdepth 6 -type d -name 'jupyterhub-user-tokhub-*' 2>/dev/null || true)
        [ -n "$groups" ] || return 0
        for d in $groups; do
            find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
            find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
        done
        sleep 0.25
    done
    say "could not remove the groups $groups"
}

# useradd and userdel keep the previous /etc/passwd, shadow, group and gshadow as backups
# (passwd- ...) and the mail spool: take our accounts out of those too, so that nothing of
# them is left once they are removed. Only lines of accounts that no longer exist.
forget_users() {
    local user f
    for user in $INSTRUCTOR $STUDENTS; do
        getent passwd "$user" >/dev/null && continue
        for f in /etc/passwd- /etc/shadow- /etc/group- /etc/gshadow- /etc/subuid- /etc/subgid-; do
            if [ -f "$f" ] && grep -q "^$user:" "$f"; then sed -i "/^$user:/d" "$f"; fi
        done
        rm -f "/var/mail/$user" "/var/spool/mail/$user"
    done
}

# ---------------------------------------------------------------------------------------
# start
# ---------------------------------------------------------------------------------------
write_config() {  # path, owner, mode; the text on stdin
    mkdir -p "$(dirname "$1")"
    cat > "$1"
    chown "$2" "$1"
    chmod "$3" "$1"
}

# A student's disk: an ext4 image of $DISK_SIZE, loop-mounted at $USERS/<student>/ (0711),
# with home/ (0700, the student's, bound on /home/<student>) and inbound/ (the student's,
# group the instructor's, 2770: the instructor's collect reads it; no other student can).
# All the student writes there, home and submissions, stays within the image's size.
make_disk() {
    local user=$1 top=$USERS/$1
    mkdir -p "$DISKS" "$top" "/home/$user"
    chown "$user:" "/home/$user"  # the mount point too: userdel -r removes only a home of the user's
    chmod 700 "$DISKS" "/home/$user"
    truncate -s "$DISK_SIZE" "$DISKS/$user.img"
    mkfs.ext4 -q -F -m 0 -L "$user" "$DISKS/$user.img"  # -m 0: every block the student's
    mount -o loop,nosuid,nodev "$DISKS/$user.img" "$top"
    chmod 711 "$top"
    mkdir "$top/home" "$top/inbound"
    cp -rT /etc/skel "$top/home"
    chown -R "$user:" "$top/home"
    chmod 700 "$top/home"
    chown "$user:$INSTRUCTOR" "$top/inbound"
    chmod 2770 "$top/inbound"
    mount --bind "$top/home" "/home/$user"
}

do_start() {
    do_stop
    do_install
    mkdir -p "$STATE" "$CONFIG" "$EXCHANGE" "$(dirname "$PROFILE")"
    chmod 700 "$STATE"
    chmod 755 "$RUN" "$RUN/etc" "$CONFIG" "$(dirname "$PROFILE")"
    chmod 1777 "$EXCHANGE"  # sticky: nobody but its owner renames exchange/tokenization

    # --- users ---
    local user pw
    install -m 600 /dev/null "$STATE/passwords"
    for user in $INSTRUCTOR $STUDENTS; do
        getent passwd "$user" >/dev/null && die "$user exists and is not one of mine: I will not touch it"
        if [ "$user" = "$INSTRUCTOR" ]; then
            useradd --create-home --shell /bin/bash --comment "$MARK" "$user"
        else
            useradd --no-create-home --home-dir "/home/$user" --shell /bin/bash --comment "$MARK" "$user"
            make_disk "$user"
        fi
        chmod 700 "$(home_of "$user")"  # no one reads another's work
        pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
        echo "$user:$pw" | chpasswd
        echo "$user $pw" >> "$STATE/passwords"
    done

    # --- the course's place in the exchange, the instructor's before any student can take it ---
    # nbgrader's release makes these when they are missing, with these modes but inbound
    # 2733; when they exist it checks their owner and leaves their mode alone, so the
    # sticky bit stays: a student cannot rename or delete another's submission.
    install -d -o "$INSTRUCTOR" -g "$INSTRUCTOR" -m 755 "$EXCHANGE/$COURSE_ID" "$EXCHANGE/$COURSE_ID/outbound"
    install -d -o "$INSTRUCTOR" -g "$INSTRUCTOR" -m 711 "$EXCHANGE/$COURSE_ID/feedback"
    install -d -o "$INSTRUCTOR" -g "$INSTRUCTOR" -m 3733 "$EXCHANGE/$COURSE_ID/inbound"

    # --- what every user's nbgrader reads: the exchange and the course ---
    write_config "$CONFIG/nbgrader_config.py" root:root 644 <<EOF
# Read by every user's nbgrader (JUPYTER_CONFIG_PATH; on a real hub /etc/jupyter/).
c = get_config()
c.Exchange.root = "$EXCHANGE"
c.CourseDirectory.course_id = "$COURSE_ID"
EOF

    # --- login shells (JupyterLab's terminals, su -, ssh): the hub's commands and exchange ---
    write_config "$PROFILE" root:root 644 <<EOF
# Sourced by every login shell of the course's users (a real hub: /etc/profile.d/).
# Debian's /etc/profile sets PATH anew: put the hub's environment first again.
case ":\$PATH:" in *":$VENV/bin:"*) ;; *) PATH="$VENV/bin:\$PATH" ;; esac
export PATH
export JUPYTER_CONFIG_PATH="$CONFIG"
EOF
    for user in $INSTRUCTOR $STUDENTS; do
        printf '\n# the course hub (autograder/hub/try_hub.sh)\n. %s\n' "$PROFILE" >> "$(home_of "$user")/.profile"
        chown "$user:" "$(home_of "$user")/.profile"
    done

    # --- the course, private to the instructor ---
    local ihome course
    ihome=$(home_of "$INSTRUCTOR")
    course=$ihome/$COURSE_ID
    mkdir -p "$course"
    if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
        # the working tree's files, tracked or new, without what .gitignore leaves out
        # (.venv, gradebook.db, submitted/...): what a clone of the course would hold
        (cd "$REPO" && git ls-files -z --cached --others --exclude-standard \
            | while IFS= read -r -d '' f; do [ -e "$f" ] && [ "$f" != .venv ] && printf '%s\0' "$f"; done \
            | tar --null --no-recursion -T - -cf -) | tar -xf - -C "$course"
    else
        (cd "$REPO" && tar --exclude=./.venv --exclude=./_build --exclude='*/node_modules' -cf - .) \
            | tar -xf - -C "$course"
    fi
    # -n: a .venv symlink of the working tree (a git worktree's) is replaced, not followed
    ln -sfn "$VENV" "$course/.venv"  # the hub's environment is the course's (kernel in .venv/kernel)
    chown -R "$INSTRUCTOR:" "$course"
    chown -h "$INSTRUCTOR:" "$course/.venv"
    chmod 700 "$course"
    write_config "$ihome/.jupyter/nbgrader_config.py" "$INSTRUCTOR:" 600 <<EOF
# The instructor's nbgrader settings. The formgrader runs in ~ (the server's root
# directory), not in the course directory: this tells it where the course is. It then
# also reads the course's own nbgrader_config.py (the sandbox, the grading pipeline).
c = get_config()
c.CourseDirectory.root = "$course"
# Each student's server sees its own $USERS/<student>/inbound as the exchange's inbound
# (jupyterhub_config.py): collect reads those too.
c.CheckedExchangeCollect.extra_inbound = ["$USERS/*/inbound"]
EOF
    chown "$INSTRUCTOR:" "$ihome/.jupyter"
    say "generating the assignments as $INSTRUCTOR (autograder/release.py ${ASSIGNMENTS:-all})"
    # shellcheck disable=SC2086
    as_user "$INSTRUCTOR" "$course" python autograder/release.py $ASSIGNMENTS >/dev/null

    # --- students: no formgrader, no "Create Assignment" (nbgrader's documented way) ---
    # `jupyter server extension disable --user nbgrader.server_extensions.formgrader`, nbgrader's
    # documented command, fails in jupyter_server 2.21 when the user's config does not list
    # the extension yet ("Validation failed: ... could not be found", exit status 0): write
    # the file it would write. The user's config dir comes before the environment's, so
    # this `false` wins over the `true` that nbgrader's install put in venv/etc/jupyter.
    for user in $STUDENTS; do
        as_user "$user" "" sh -c 'mkdir -p ~/.jupyter/jupyter_server_config.d && cat > \
            ~/.jupyter/jupyter_server_config.d/nbgrader.server_extensions.formgrader.json' <<'EOF'
{"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": false}}}
EOF
        as_user "$user" "" jupyter labextension disable --level=user @jupyter/nbgrader:formgrader >/dev/null 2>&1
        as_user "$user" "" jupyter labextension disable --level=user @jupyter/nbgrader:create-assignment \
            >/dev/null 2>&1
    done

    # --- the hub ---
    cd "$STATE"
    setsid env -i PATH="$VENV/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
        TOKHUB_PREFIX="$PREFIX" TOKHUB_PORT="$PORT" TOKHUB_INSTRUCTOR="$INSTRUCTOR" \
        TOKHUB_STUDENTS="$STUDENTS" TOKHUB_STUDENT_MEMORY="${TOKHUB_STUDENT_MEMORY:-2G}" \
        TOKHUB_INSTRUCTOR_MEMORY="${TOKHUB_INSTRUCTOR_MEMORY:-8G}" TOKHUB_COURSE_ID="$COURSE_ID" \
        TOKHUB_STUDENT_CPUS="${TOKHUB_STUDENT_CPUS:-1}" TOKHUB_STUDENT_TMPFS="${TOKHUB_STUDENT_TMPFS:-256M}" \
        TOKHUB_INSTRUCTOR_TMPFS="${TOKHUB_INSTRUCTOR_TMPFS:-2G}" \
        "$VENV/bin/jupyterhub" -f "$HERE/jupyterhub_config.py" >"$STATE/hub.log" 2>&1 </dev/null &
    echo $! > "$STATE/hub.pid"
    cd "$REPO"
    local url="http://127.0.0.1:$PORT"
    if ! "$VENV/bin/python" - "$url/hub/health" <<'EOF'
import sys, time, urllib.request
for _ in range(240):
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except OSError:
        time.sleep(0.25)
sys.exit(1)
EOF
    then
        tail -n 30 "$STATE/hub.log" >&2
        die "the hub did not start (its log: $STATE/hub.log)"
    fi
    cat <<EOF
The hub runs on $url (log: $STATE/hub.log).
  users and passwords: $STATE/passwords (root only)
  instructor: $INSTRUCTOR, course in $course
  students:   $STUDENTS
  exchange:   $EXCHANGE
  disks:      $USERS/<student> ($DISK_SIZE each: home and inbound)
  formgrader: $url/user/$INSTRUCTOR/formgrader (in a browser tab of its own)
Stop it and remove the users: bash $0 stop
EOF
}

case "${1:-}" in
    start) need_root; do_start ;;
    stop) need_root; do_stop; say "stopped; users and $RUN removed" ;;
    install) need_root; do_install ;;
    purge) need_root; do_stop; rm -rf "$PREFIX"; forget_users; say "removed $PREFIX" ;;
    *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
