"""The sandbox's private view of the machine, built from Linux namespaces (the grader's side of isolation).

Copied beside ``worker.py`` into the sandbox and used there, before any student code runs. Two steps:

1. :func:`enter_private_root`, once, in the *zygote* (the warm worker a batch forks from). It takes
   a mount namespace and a network namespace of its own (an ordinary user first takes a user
   namespace, in which it is "root" over nothing but its own namespaces), builds a new root
   filesystem on an empty tmpfs, and moves into it (``pivot_root``). That root holds, read-only,
   only what running Python needs: ``/usr`` and the Python installation, the pristine engine copy
   (at ``/sandbox``) and a few device files; and, writable, the folder of boxes through which the
   grader and the sandbox exchange the plan and the results. The repository, home folders, the
   gradebook, other students' submissions, ``/tmp``, ``/run`` and its sockets are simply not in
   it: isolation by construction, not by a list of what to hide. The network namespace has only a
   loopback device that is down, so there is no network and no abstract Unix socket of the host.
2. :func:`enter_box`, in each child forked for one submission. It takes a mount namespace and a
   PID namespace of its own; its first process (PID 1: when it ends, the kernel kills everything
   it started) mounts its own ``/proc`` (showing only its own processes), a size-capped ``/tmp``
   (its working folder and HOME) and ``/dev/shm`` (both count against its memory limit), shows
   its box read-only at ``/io`` (it writes its results through one file it opened before), and
   then gives up every privilege: as root it becomes ``nobody``; as an ordinary user it enters one
   more user namespace, where the mounts it was given are locked in place.

Everything here goes through libc (``mount``, ``unshare``, ``pivot_root``), as container
runtimes do; ``python -S`` and the standard library are all it needs.
"""
import ctypes
import os

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_MOVE, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 1 << 13, 1 << 18, 1 << 21, 1 << 24
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
NOBODY = 65534
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "ppc64le": 203, "s390x": 217, "riscv64": 41}
DEVICES = ("null", "zero", "full", "random", "urandom")

_libc = ctypes.CDLL(None, use_errno=True)


def _ok(ret, what):
    if ret != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _b(s):
    return None if s is None else os.fsencode(s)


def mount(source, target, fstype=None, flags=0, data=None):
    _ok(_libc.mount(_b(source), _b(target), _b(fstype), ctypes.c_ulong(flags), _b(data)), f"mount {target}")


def umount(target):
    _ok(_libc.umount2(_b(target), MNT_DETACH), f"umount {target}")


def unshare(flags):
    _ok(_libc.unshare(flags), "unshare")


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def map_own_ids(inside_uid, outside_uid, outside_gid):
    """In a fresh user namespace: make ``inside_uid`` (and gid) the one user here, standing for our own."""
    _write("/proc/self/setgroups", "deny")  # required before an unprivileged gid_map
    _write("/proc/self/uid_map", f"{inside_uid} {outside_uid} 1")
    _write("/proc/self/gid_map", f"{inside_uid} {outside_gid} 1")


def _locked_flags(path):
    """The flags a remount of ``path`` must keep: in a user namespace the kernel locks the nosuid,
    nodev, noexec and atime flags of mounts inherited from outside (changing them is EPERM)."""
    f = os.statvfs(path).f_flag
    flags = 0
    for st, ms in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                   (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME)):
        if f & st:
            flags |= ms
    if not flags & (MS_NOATIME | MS_RELATIME):
        flags |= MS_STRICTATIME
    return flags


def _mounts_under(path):
    """Mount points at or below ``path`` (from /proc/self/mountinfo), top first."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            point = line.split()[4].encode().decode("unicode_escape")  # octal escapes such as \040
            if point == path or point.startswith(path.rstrip("/") + "/"):
                found.append(point)
    return sorted(set(found), key=len)


def bind_read_only(source, target):
    """``target`` shows ``source`` (and the mounts below it), every one of them read-only."""
    mount(source, target, flags=MS_BIND | MS_REC)
    for point in _mounts_under(target):
        try:
            mount(None, point, flags=MS_REMOUNT | MS_BIND | MS_RDONLY | _locked_flags(point))
        except OSError:
            if point == target:
                raise


def _place(root, path, is_dir=True):
    """Create ``path`` inside ``root`` (parents too) as an empty folder or file; returns its full name."""
    inside = os.path.join(root, path.lstrip("/"))
    os.makedirs(inside if is_dir else os.path.dirname(inside), exist_ok=True)
    if not is_dir and not os.path.exists(inside):
        open(inside, "w").close()
    return inside


def enter_private_root(root, read_only, sandbox, boxes, masks=()):
    """The zygote's step: private mount and network namespaces, then a new root built in ``root``.

    ``read_only``: host paths shown at the same path, read-only (``/usr``, the Python installation,
    its site-packages; a top-level symlink such as ``/lib -> usr/lib`` is recreated as a symlink).
    ``sandbox``: the folder with ``worker.py``, the engine copy and the harnesses, shown at
    ``/sandbox``. ``boxes``: the folder of boxes, shown writable at ``/boxes``. ``masks``: paths
    inside ``read_only`` ones that are covered by an empty read-only folder (a course package
    installed into site-packages, say). Raises OSError where the kernel refuses namespaces.
    """
    uid, gid = os.getuid(), os.getgid()
    try:  # root (or root of a user namespace) may take the namespaces directly
        unshare(CLONE_NEWNS | CLONE_NEWNET)
    except PermissionError:  # an ordinary user takes a user namespace first, and is root only in it
        unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET)
        map_own_ids(0, uid, gid)
    mount(None, "/", flags=MS_REC | MS_PRIVATE)  # nothing we mount from here on is seen outside
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=755")
    for path in read_only:
        path = os.path.abspath(path)
        if os.path.islink(path) and os.path.dirname(path) == "/":
            if not os.path.lexists(os.path.join(root, path[1:])):
                os.symlink(os.readlink(path), os.path.join(root, path[1:]))
        elif os.path.exists(path):
            bind_read_only(path, _place(root, path, os.path.isdir(path)))
    for path in masks:
        inside = os.path.join(root, path.lstrip("/"))
        if os.path.isdir(inside):
            mount("tmpfs", inside, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=555")
    bind_read_only(sandbox, _place(root, "/sandbox"))
    mount(boxes, _place(root, "/boxes"), flags=MS_BIND | MS_REC)
    mount("tmpfs", _place(root, "/dev"), "tmpfs", MS_NOSUID, "size=64k,mode=755")
    for name in DEVICES:
        mount(f"/dev/{name}", _place(root, f"/dev/{name}", is_dir=False), flags=MS_BIND)
    _place(root, "/dev/shm")
    # the host's /proc, for now: each child mounts its own over it (the kernel lets a namespace mount
    # a new proc only where a proc is already fully visible), or an empty folder where it cannot
    mount("/proc", _place(root, "/proc"), flags=MS_BIND | MS_REC)
    for name in ("/tmp", "/io"):
        _place(root, name)
    mount(None, root, flags=MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _pivot_into(root)


def _pivot_into(root):
    """Make ``root`` the root of this mount namespace, and let go of the old one entirely."""
    os.chdir(root)
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is not None and _libc.syscall(number, b".", b".") == 0:
        umount(".")  # pivot_root(".", ".") stacks the old root on the new one: detach it
    else:  # no pivot_root for this architecture: move the new root over "/" (what switch_root does)
        mount(".", "/", flags=MS_MOVE)
        os.chroot(".")
    os.chdir("/")


def enter_box(box_name, tmp_mb, shm_mb):
    """One child's step (after ``fork`` from the zygote): returns ``(results_fd, fresh_user_namespace)``
    in PID 1 of a PID namespace of its own, with every privilege given up. (The process that
    called it waits for that PID 1 and exits with its status.)"""
    unshare(CLONE_NEWNS | CLONE_NEWPID)
    pid = os.fork()  # the new PID namespace starts with this child
    if pid:
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0x7F)
    _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # it dies with its parent, whatever it does
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        mount("tmpfs", "/proc", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=555")
    for where, mb in (("/tmp", tmp_mb), ("/dev/shm", shm_mb)):
        mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, f"size={int(mb)}m,mode=1777")
    box = os.path.join("/boxes", box_name)
    results = os.open(os.path.join(box, "results.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    bind_read_only(box, "/io")
    umount("/boxes")  # the folder of boxes is gone from this view; only this box remains, read-only
    os.chdir("/tmp")
    return results, _give_up_privileges()


def _give_up_privileges():
    """As root: become ``nobody`` (no capabilities left; in the user namespace of an ordinary user
    there is no ``nobody`` to become, and nothing to give up outside it). Either way, then enter a
    user namespace of our own where the kernel allows it: the mounts above are then locked, and the
    kernel counts this submission's processes apart from every other process of the same uid.
    Returns whether that last step happened."""
    if os.getuid() == 0:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        except OSError:
            pass  # root of an ordinary user's namespace: nobody is not mapped there
    outside = os.getuid()
    try:
        unshare(CLONE_NEWUSER)
        # a process that is not dumpable (the zygote is not, so that its children cannot read its memory)
        # cannot write its own /proc/self/uid_map: dumpable for the moment of writing it
        _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        try:
            map_own_ids(1000, outside, os.getgid())
        finally:
            _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        return True
    except OSError:
        return False
