# SPDX-License-Identifier: MIT
"""Stage 6, output: write every file of a run or none, or print the run
as a unified diff.

Writing has two phases.  Prepare: next to each destination, a temporary
file gets the new text (and, for a file rewritten in place, a second one
gets its current text, the backup); a full disk, a read-only directory or
a destination that is a directory fails here, before any file changes.
Commit: each destination gets its new text.  When one fails, those done
are rolled back from their backups (content, then access and modification
times), every temporary is removed, and the error is one line.

--in-place rewrites a file in its own inode (as cp or an editor that
keeps backups does, not as sed -i): through a symbolic link the target
changes and the link stays; every hard link sees the new text; owner,
group, mode, ACLs and ls -i stay as they were.  With -o, and for a file
that did not exist (rcl-config.h), the temporary is renamed over the
destination, whose earlier version (an earlier run's output) is kept
under a backup name until every destination is done.

Line endings: a file whose lines all end in CRLF keeps them, and the
lines the tool generates get CRLF too (program.File works on it with LF
ones; Output.eol puts the CRs back); the bytes of every untouched part
are the input's (files are read and written as latin-1, without newline
translation)."""
import difflib
import os
import re
import secrets
import stat
import sys
from dataclasses import dataclass, field

CRLF, LF = "\r\n", "\n"


class WriteError(Exception):
    """A one-line reason why nothing was written."""


@dataclass
class Output:
    dest: str               # the path the user sees (an input, or under -o)
    text: str               # its new text, LF line endings
    source: str = None      # the input it comes from (None: rcl-config.h)
    eol: str = LF           # the line ending it is written with


@dataclass
class _Pending:
    out: Output
    data: bytes             # the new text, encoded
    in_inode: bool          # rewrite the existing inode (--in-place)
    target: str = None      # the file written (a symbolic link's target)
    tmp: str = None         # the new text, next to target
    backup: str = None      # the old text (in_inode), or the old file
    old: bytes = None       # the old text (in_inode)
    times: tuple = None     # (atime_ns, mtime_ns) of target (in_inode)
    done: bool = False      # something to roll back
    moved: bool = False     # the old file is only under its backup name
    replaced: bool = False  # the new file is in place
    dirs: list = field(default_factory=list)  # directories made for it


def line_ending(text):
    """CRLF when every line of @text ends in CRLF (and there is one),
    else LF."""
    if CRLF in text and not re.search(r"(?<!\r)\n", text):
        return CRLF
    return LF


def with_eol(text, eol):
    """@text with its bare LFs made @eol (lines that already end in CRLF
    are kept as they are)."""
    if eol == LF:
        return text
    return re.sub(r"(?<!\r)\n", eol, text)


def _read(path):
    with open(path, "rb") as fh:
        return fh.read()


def _why(e, path=None):
    """'PATH: reason' for an OSError."""
    return "%s: %s" % (path or e.filename, e.strerror or e)


def _tempfile(d, data, mode, suffix=""):
    """A new file in directory @d holding @data (flushed to disk)."""
    try:
        return _new_file(d, data, mode, suffix)
    except OSError as e:
        raise WriteError("%s: cannot write a temporary file there (%s)" % (
            d, e.strerror)) from e


def _new_file(d, data, mode, suffix):
    for _ in range(100):
        p = os.path.join(d, ".rcl-%s%s" % (secrets.token_hex(4), suffix))
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
        except FileExistsError:
            continue
    else:
        raise WriteError("%s: cannot find a free temporary name" % d)
    try:
        _write_fd(fd, data)
        os.fchmod(fd, mode)  # the umask applied to os.open's mode
    except BaseException:
        os.close(fd)
        os.unlink(p)
        raise
    os.close(fd)
    return p


def _write_fd(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _rewrite(path, data):
    """Write @data into the existing file @path (same inode)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        _write_fd(fd, data)
    finally:
        os.close(fd)


def _umask():
    old = os.umask(0o22)
    os.umask(old)
    return old


def _mkdirs(d):
    """Make directory @d and its missing parents; the ones made, parents
    first."""
    made = []
    while d and not os.path.isdir(d):
        if os.path.lexists(d):
            raise WriteError("%s: not a directory" % d)
        made.append(d)
        d = os.path.dirname(d)
    for m in reversed(made):
        os.mkdir(m)
    return list(reversed(made))


def _prepare(p, umask):
    o = p.out
    if p.in_inode:
        p.target = os.path.realpath(o.dest)
        st = os.stat(p.target)
        if not stat.S_ISREG(st.st_mode):
            raise WriteError("%s: not a regular file" % o.dest)
        p.old = _read(p.target)
        p.times = (st.st_atime_ns, st.st_mtime_ns)
        d = os.path.dirname(p.target)
        p.backup = _tempfile(d, p.old, 0o600, ".orig")
        p.tmp = _tempfile(d, p.data, 0o600)
        return
    p.target = os.path.abspath(o.dest)
    if os.path.isdir(p.target):
        raise WriteError("%s: is a directory" % o.dest)
    p.dirs = _mkdirs(os.path.dirname(p.target))
    mode = 0o666 & ~umask
    if o.source is not None:
        mode = stat.S_IMODE(os.stat(o.source).st_mode) & 0o777
    p.tmp = _tempfile(os.path.dirname(p.target), p.data, mode)


def _keep_old(p):
    """Give the destination's current file a backup name, still in
    place (a hard link), else moved there."""
    d = os.path.dirname(p.target)
    for _ in range(100):
        bk = os.path.join(d, ".rcl-%s.orig" % secrets.token_hex(4))
        try:
            os.link(p.target, bk, follow_symlinks=False)
            p.backup, p.done = bk, True
            return
        except FileExistsError:
            continue
        except OSError:
            break  # no hard links here: move it aside instead
    bk = os.path.join(d, ".rcl-%s.orig" % secrets.token_hex(8))
    os.rename(p.target, bk)
    p.backup, p.done, p.moved = bk, True, True


def _commit(p):
    if p.in_inode:
        fd = os.open(p.target, os.O_WRONLY)
        p.done = True  # from here, a partial write is rolled back too
        try:
            _write_fd(fd, p.data)
        finally:
            os.close(fd)
        return
    if os.path.lexists(p.target):
        _keep_old(p)
    os.replace(p.tmp, p.target)
    p.tmp = None
    p.done = p.replaced = True


def _rollback(p):
    """Undo what _commit() did of @p; raises OSError when it cannot."""
    if p.in_inode:
        _rewrite(p.target, p.old)
        os.utime(p.target, ns=p.times)
    elif p.replaced or p.moved:
        if p.backup:
            os.replace(p.backup, p.target)
            p.backup = None
        else:
            os.unlink(p.target)
    # else only a hard link to the old file was made: _cleanup() drops it


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def write_all(outputs, in_place):
    """Write every Output of @outputs, or none: see the module's
    comment; @in_place: existing files are rewritten in their inode.
    Raises WriteError (nothing changed), or WriteError naming the
    backups left when even the rollback failed."""
    pend = []
    seen = {}
    for o in outputs:
        pend.append(_Pending(o, with_eol(o.text, o.eol).encode("latin-1"),
                             in_place and os.path.lexists(o.dest)))
    umask = _umask()
    lost = []
    try:
        for p in pend:
            _prepare(p, umask)
            if p.in_inode:
                st = os.stat(p.target)
                other = seen.setdefault((st.st_dev, st.st_ino), p.out.dest)
                if other != p.out.dest:
                    raise WriteError("%s and %s are the same file (hard "
                                     "links): name one of them only" % (
                                         other, p.out.dest))
        for p in pend:
            try:
                _commit(p)
            except OSError as e:
                raise WriteError("%s: cannot %s it (%s)" % (
                    p.out.dest, "write" if p.in_inode else "replace",
                    e.strerror)) from e
    except BaseException as e:
        for p in reversed(pend):
            if not p.done:
                continue
            try:
                _rollback(p)
            except OSError as r:
                lost.append("%s (from %s)" % (_why(r, p.out.dest),
                                              p.backup))
                p.backup = None  # the user's only copy: keep it
        _cleanup(pend, True)
        if lost:
            raise WriteError("%s; and could not restore %s" % (
                _reason(e), "; ".join(lost))) from e
        if isinstance(e, (OSError, WriteError)):
            raise WriteError("%s; nothing written" % _reason(e)) from e
        raise
    _cleanup(pend, False)


def _reason(e):
    if isinstance(e, OSError):
        return _why(e)
    return str(e)


def _cleanup(pend, failed):
    for p in pend:
        for t in (p.tmp, p.backup):
            if t:
                try:
                    _remove(t)
                except OSError:
                    pass
        if failed:
            for d in reversed(p.dirs):
                try:
                    os.rmdir(d)
                except OSError:
                    pass


def _lines(text):
    """@text's lines with their ends: split at LF only (str.splitlines()
    also splits at a form feed, or at U+0085 that is a latin-1 byte)."""
    parts = text.split("\n")
    return [x + "\n" for x in parts[:-1]] + ([parts[-1]] if parts[-1]
                                             else [])


def diff(outputs, root, out=None):
    """Print, as `diff -u` would with a/ and b/ prefixes relative to
    @root, what writing @outputs would change.  Returns how many files
    would change."""
    out = out or sys.stdout.buffer
    n = 0
    for o in outputs:
        new = with_eol(o.text, o.eol)
        try:
            old = _read(o.dest).decode("latin-1")
        except FileNotFoundError:
            old = None
        except OSError as e:
            raise WriteError(_why(e, o.dest))
        if old == new:
            continue
        rel = os.path.relpath(os.path.abspath(o.dest), root)
        lines = difflib.unified_diff(
            _lines(old or ""), _lines(new),
            "a/" + rel if old is not None else "/dev/null", "b/" + rel)
        for ln in lines:
            out.write(ln.encode("latin-1"))
            if not ln.endswith("\n"):
                out.write(b"\n\\ No newline at end of file\n")
        n += 1
    out.flush()
    return n
