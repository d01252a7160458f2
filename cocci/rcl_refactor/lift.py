# SPDX-License-Identifier: MIT
"""Stage 1b, lift: sections whose unlock sits at the top of a plain block
that follows the lock, as in zstd's thread pool:

    lock(&m);                         lock(&m);
    while (empty) wait(&c, &m);       while (empty) wait(&c, &m);
    {   job_t const job = pop();  ->      job_t const job = pop();
        unlock(&m);                       unlock(&m); {
        job.fn(job.arg);                  job.fn(job.arg);
    }                                 }

Moving the block's '{' to just after the unlock gives the section the
usual shape (lock and unlock in one block); the declarations it lifts out
are then hoisted like any other.  The move keeps every line and every
token before the unlock's line end where it was, so Coccinelle's facts
(line, column) stay valid.  A lift whose section is not transformed is
undone when the file is rendered (undo_edits)."""
import re

from . import analyse, cparse


class Lift:
    def __init__(self, lock_off, brace_off, insert_off, brace):
        self.lock_off = lock_off      # the lock statement (unchanged)
        self.brace_off = brace_off    # where '{' was (now blanks)
        self.brace = brace            # the text blanked there
        self.insert_off = insert_off  # where " {" was inserted


def lift_file(f, fns, typedefs):
    """Rewrite the text of File @f with every liftable section lifted;
    returns the Lifts (offsets in the new text)."""
    edits = []
    toks = f.src.toks
    for name, ni, bo, bc in f.funcs:
        if not any(toks[k].text in fns for k in range(bo, bc)):
            continue
        try:
            fi = analyse.FuncInfo(f.src, name, ni, bo, bc,
                                  cparse.Parser(f.src, typedefs))
        except cparse.ParseError:
            continue  # refused with its reason when its sections are
        for s in fi.body.walk():
            e = _liftable(fi, s, fns)
            if e:
                edits.append(e)
    chosen = []
    for e in sorted(edits, key=lambda e: e[1]):
        if not chosen or chosen[-1][2] < e[1]:
            chosen.append(e)  # nested lifts: the outer one only
    text, out, pos, lifts = f.src.text, [], 0, []
    for n, (lock, brace, after) in enumerate(chosen):
        # Blank the '{' without moving a column: "{\t" becomes "\t ".
        old = "{\t" if text[brace + 1:brace + 2] == "\t" else "{"
        out += [text[pos:brace], old[1:] + " ", text[brace + len(old):after],
                " {"]
        pos = after
        # Each earlier insertion (2 bytes at its `after`) moved what
        # follows it.
        moved = sum(2 for e in chosen[:n] if e[2] <= lock)
        lifts.append(Lift(lock + moved, brace + 2 * n, after + 2 * n, old))
    out.append(text[pos:])
    if lifts:
        f.retext("".join(out))
    return lifts


def _liftable(fi, s, fns):
    """(lock offset, '{' offset, offset after the unlock's ';') when the
    lock statement @s has its unlock at the top of a following plain block
    and the move is safe, else None."""
    toks, text = fi.src.toks, fi.src.text
    op = analyse.op_shape(toks, s, fns)
    blk = s.parent
    if not op or op[0].role != "lock" or op[1] is None or \
            blk is None or blk.kind != "block":
        return None
    i = blk.subs.index(s)
    inner, m = None, None
    for k in range(i + 1, len(blk.subs)):
        o = analyse.op_shape(toks, blk.subs[k], fns)
        if o and o[1] == op[1]:
            return None  # unlocked (or relocked) at its own level
        if blk.subs[k].kind == "block":
            m = _top_unlock(toks, blk.subs[k], op[1], fns)
            if m is not None:
                inner = blk.subs[k]
                break
    if inner is None:
        return None
    u = inner.subs[m]
    end = toks[u.t1 - 1].end
    eol = text.find("\n", end)
    rest = re.sub(r"/\*.*?\*/|//.*", "", text[end:eol if eol >= 0 else None])
    if rest.strip():
        return None  # code after the unlock on its line would move
    lifted = set()
    for st in inner.subs[:m]:
        if st.kind == "decl":
            lifted |= {d.name for d in analyse.parse_decl(
                toks, st.t0, st.t1 - 1, inner)}
        elif st.kind in ("label", "case", "pp"):
            return None
    if _clash(fi, blk, inner, lifted):
        return None
    return (toks[s.t0].start, toks[inner.t0].start, end)


def _top_unlock(toks, inner, ident, fns):
    for m, st in enumerate(inner.subs):
        o = analyse.op_shape(toks, st, fns)
        if o and o[1] == ident:
            return m if o[0].role == "unlock" else None
    return None


def _clash(fi, blk, inner, names):
    """Whether lifting declarations @names from @inner into @blk would
    redeclare a name of @blk's scope or capture a later use of an outer
    variable of the same name."""
    if not names:
        return False
    for d in fi.decls:
        if d.name in names and (d.block is blk or (
                blk is fi.body and d.is_param)):
            return True
    toks = fi.src.toks
    return any(toks[k].kind == "id" and toks[k].text in names and
               toks[k - 1].text not in (".", "->")
               for k in range(inner.t1, blk.t1))


def undo_edits(f, lifts, transformed):
    """Edits restoring the original braces of the lifts whose section was
    not transformed (@transformed: offsets of lock statements that were),
    and putting the moved '{' of the others on a line of its own."""
    text, out = f.src.text, []
    for x in lifts:
        if x.lock_off in transformed:
            bol = text.rfind("\n", 0, x.brace_off) + 1
            ind = text[bol:x.brace_off]
            ind = ind if not ind.strip() else ""
            out.append((x.insert_off, x.insert_off + 2, "\n%s{" % ind))
            continue
        out.append((x.brace_off, x.brace_off + len(x.brace), x.brace))
        out.append((x.insert_off, x.insert_off + 2, ""))
    return out
