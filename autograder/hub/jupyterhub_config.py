# The test hub of autograder/hub/try_hub.sh (JupyterHub 6.1.1, configurable-http-proxy 5.3.0):
# one instructor and two students on 127.0.0.1, each user's server a local process that runs
# as that Linux user. try_hub.sh starts it as root, in $TOKHUB_PREFIX/run/state, with
#   jupyterhub -f autograder/hub/jupyterhub_config.py
# and the TOKHUB_* variables below. autograder/README.md ("With JupyterHub") explains it.
import os
import runpy

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = os.environ.get("TOKHUB_PREFIX", "/opt/tokhub")
PORT = int(os.environ.get("TOKHUB_PORT", "8765"))
VENV = f"{PREFIX}/venv"                  # the environment of the hub and of every server (no tokref)
STATE = f"{PREFIX}/run/state"            # the hub's database, cookie secret, pid files
CONFIG = f"{PREFIX}/run/etc/jupyter"     # nbgrader_config.py: Exchange.root, course_id
EXCHANGE = f"{PREFIX}/run/exchange"      # nbgrader's exchange (Exchange.root)
USERS = f"{PREFIX}/run/users"            # <student>/: the student's own disk (home/, inbound/)
COURSE_ID = os.environ.get("TOKHUB_COURSE_ID", "tokenization")
INSTRUCTOR = os.environ.get("TOKHUB_INSTRUCTOR", "tokhub-instructor")
STUDENTS = os.environ.get("TOKHUB_STUDENTS", "tokhub-alice tokhub-bob").split()

# --- Network: this machine only ----------------------------------------------------------
# Users reach the proxy on PORT; the hub's own API and the proxy's API listen on the two
# ports after it. A real hub puts HTTPS in front (JupyterHub's ssl_cert or a reverse proxy).
c.JupyterHub.bind_url = f"http://127.0.0.1:{PORT}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{PORT + 1}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORT + 2}"
c.ConfigurableHTTPProxy.command = [f"{PREFIX}/proxy/node_modules/.bin/configurable-http-proxy"]
c.ConfigurableHTTPProxy.pid_file = f"{STATE}/proxy.pid"
c.JupyterHub.db_url = f"sqlite:///{STATE}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{STATE}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = f"{STATE}/jupyterhub.pid"

# --- Who may log in ----------------------------------------------------------------------
# PAM: the users' Linux passwords (try_hub.sh sets random ones with chpasswd and writes them
# to $STATE/passwords, readable by root only). A real hub uses PAM too, or OAuth (the
# university's login: oauthenticator) or LTI from the LMS. No one is a hub admin: an admin
# could open every student's server.
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.open_sessions = False  # no systemd-logind session per server
c.Authenticator.allowed_users = {INSTRUCTOR, *STUDENTS}

# --- Each user's server -------------------------------------------------------------------
# LocalProcessSpawner (JupyterHub's default) with a cap: the hub, run by root, starts
# `jupyterhub-singleuser` as the user, in the user's home, which is the server's root
# directory (the formgrader needs the course directory inside it), inside a cgroup of its
# own with Spawner.mem_limit (no swap beyond it), CappedSpawner.tasks_limit and
# Spawner.cpu_limit for all its processes together, and an equal CPU share with every
# other server (capped_spawner.py). One student's kernel that allocates too much is
# killed in their own group; the others' servers go on. The instructor's group is
# delegated to them: grade.py in their terminal, and the formgrader's Autograde, cap each
# submission in a group of its own inside it.
#
# Each server also has a mount namespace of its own (private_mounts.py): its own /tmp,
# /var/tmp and /dev/shm (tmpfs, size-capped, counted in its memory cap, gone when it
# stops), and, for a student, the exchange's course read-only except its inbound, which
# is the student's own directory on their own disk: try_hub.sh gives each student a
# loop-mounted ext4 image of TOKHUB_STUDENT_DISK (256M) at $USERS/<student>/, whose home/
# is bound on /home/<student> and whose inbound/ is bound here on the course's inbound.
# So a student's home and submissions together stay within that size; the instructor's
# collect reads every $USERS/*/inbound (CheckedExchangeCollect.extra_inbound, set in the
# instructor's nbgrader_config.py).
# The course's autograder package, loaded by location from beside this file (jupyterhub
# execs this file; nothing edits sys.path): the spawner and the grading share cgroups.py.
runpy.run_path(os.path.join(os.path.dirname(HERE), "_load.py"))
from autograder.hub.capped_spawner import CappedSpawner  # noqa: E402

c.JupyterHub.spawner_class = CappedSpawner
c.Spawner.mem_limit = os.environ.get("TOKHUB_STUDENT_MEMORY", "2G")
c.CappedSpawner.tasks_limit = 512
c.CappedSpawner.delegate = {INSTRUCTOR}
c.Spawner.cpu_limit = float(os.environ.get("TOKHUB_STUDENT_CPUS", "1"))
TMPFS = os.environ.get("TOKHUB_STUDENT_TMPFS", "256M")
c.CappedSpawner.private_tmpfs = {"/tmp": TMPFS, "/var/tmp": TMPFS, "/dev/shm": TMPFS}
if os.path.isdir("/run/lock"):  # world-writable on Debian: on / when /run is not a tmpfs
    c.CappedSpawner.private_tmpfs["/run/lock"] = "1M"
# nbgrader wants the exchange's root writable by all (its ensure_root): a student's server
# has a 1 MiB tmpfs of its own there, in which the course's directory is read-only and
# its inbound is the student's own (private_mounts.py opens both before hiding the root).
c.CappedSpawner.private_tmpfs[EXCHANGE] = "1M"
c.CappedSpawner.read_only_paths = [f"{EXCHANGE}/{COURSE_ID}"]
c.CappedSpawner.bind_paths = {f"{EXCHANGE}/{COURSE_ID}/inbound": f"{USERS}/{{username}}/inbound"}


def instructor_caps(spawner) -> None:
    """The instructor grades in their server: room for grade.py's workers, each capped at
    the course's SandboxedKernelManager.submission_memory_mb (4 GiB) inside it, all the
    machine's CPUs, a bigger /tmp, and the exchange writable (release, feedback, collect)."""
    if spawner.user.name == INSTRUCTOR:
        spawner.mem_limit = os.environ.get("TOKHUB_INSTRUCTOR_MEMORY", "8G")
        spawner.tasks_limit = 2048
        spawner.cpu_limit = None
        size = os.environ.get("TOKHUB_INSTRUCTOR_TMPFS", "2G")
        spawner.private_tmpfs = {path: size for path in spawner.private_tmpfs if path != EXCHANGE}
        spawner.read_only_paths = []
        spawner.bind_paths = {}


c.Spawner.pre_spawn_hook = instructor_caps
c.Spawner.cmd = [f"{VENV}/bin/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    # nbgrader's apps (and alembic, which the gradebook runs) from the hub's environment
    "PATH": f"{VENV}/bin:/usr/local/bin:/usr/bin:/bin",
    # Where every user's nbgrader finds the exchange and the course id: on a real hub,
    # /etc/jupyter/nbgrader_config.py, which Jupyter reads without being told.
    "JUPYTER_CONFIG_PATH": CONFIG,
}
c.Spawner.start_timeout = 120  # a server's first start on a busy 2-core machine
c.Spawner.http_timeout = 120
