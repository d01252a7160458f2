# SPDX-License-Identifier: MIT
"""--plot: a timeline of the top locks per thread over the share of CPUs
left idle, drawn with gnuplot."""
import os
import subprocess
import tempfile

from .dumps import EV_COND, EV_HOLD, EV_JOIN, EV_WAIT
from .errors import Error
from .model import lock_of
from .table import fmt_ns

PLOT_LOCKS = 4     # locks drawn in colour; the others as "other locks"
PLOT_THREADS = 32  # thread lives drawn, those with the most lock time
PLOT_BINS = 400    # points of the idle-share curve
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#7f7f7f"]


def idle_curve(p, t0, t_end, bins):
    """Per bin of [t0, t_end): the share of the CPUs left idle, in percent,
    and the share of the time the program serialised.  At each instant
    min(runnable, ncpu) of the ncpu CPUs can be busy, runnable being the
    live thread lives not blocked on a lock, a condition variable or a
    join; the program serialises while runnable <= serial_max and a thread
    waits for a lock (the model behind the serialising share)."""
    edges = []
    for t in p["threads_tl"]:
        edges.append((t["start"], 1, 0))
        edges.append((t["end"], -1, 0))
        for kind, _site, a, b in t["ev"]:
            if kind != EV_HOLD:
                w = 1 if kind == EV_WAIT else 0
                edges.append((a, -1, w))
                edges.append((b, 1, -w))
    edges.sort()
    ncpu, smax = p["ncpu"], p["serial_max"]
    width = (t_end - t0) / bins
    idle, serial = [0.0] * bins, [0.0] * bins
    def add(a, b, share, ser):
        i = min(int((a - t0) / width), bins - 1)
        while a < b and i < bins:
            end = b if i == bins - 1 else min(b, t0 + (i + 1) * width)
            if end > a:
                idle[i] += (end - a) * share
                serial[i] += (end - a) * ser
                a = end
            i += 1
    run, waiting, prev = 0, 0, t0
    for t, d, w in edges:
        t = min(max(t, t0), t_end)
        if t > prev:
            add(prev, t, 1.0 - min(max(run, 0), ncpu) / ncpu,
                1.0 if run <= smax and waiting > 0 else 0.0)
            prev = t
        run += d
        waiting += w
    if t_end > prev:
        add(prev, t_end, 1.0 - min(max(run, 0), ncpu) / ncpu,
            1.0 if run <= smax and waiting > 0 else 0.0)
    return ([100.0 * v / width for v in idle],
            [v / width for v in serial])


def write_plot(procs, rep, path, keep):
    """Draw the busiest traced process: one row per thread life (running,
    waiting for and holding each of the top locks, blocked elsewhere), and
    underneath the share of the CPUs it left idle.  The gnuplot script and
    its data go to @keep when given (else a temporary directory)."""
    p = max(procs, key=lambda q: sum(len(t["ev"]) for t in q["threads_tl"]))
    ns = p["ns"]
    ms = lambda cyc: ns(cyc) / 1e6
    lives = p["threads_tl"]
    if not lives:
        raise Error("--plot: no thread was traced")
    t_end = max(t["end"] for t in lives)
    t_begin = min(t["start"] for t in lives)  # the first profiled event
    cut = [t["ev"][-1][3] for t in lives if t["dropped"] and t["ev"]]
    note = ""
    if cut:  # a full buffer: draw only the time every life was recorded
        t_end = min(cut)
        note = " (first %s: a thread's event buffer filled)" % \
            fmt_ns(ns(t_end))
    # top locks: by the report's rank among those with events
    seen = {}
    for t in lives:
        for kind, site, t0, t1 in t["ev"]:
            if kind in (EV_WAIT, EV_HOLD):
                lock = lock_of(p, rep, site)
                if lock is not None:
                    seen[lock.id] = lock
    top = sorted(seen.values(), key=lambda l: l.rank)[:PLOT_LOCKS]
    slot = {l.id: i for i, l in enumerate(top)}
    def lockslot(site):
        lock = lock_of(p, rep, site)
        return slot.get(lock.id, len(top)) if lock else len(top)
    busy = lambda t: sum(e[3] - e[2] for e in t["ev"] if e[0] != EV_COND)
    shown = sorted(sorted(lives, key=busy, reverse=True)[:PLOT_THREADS],
                   key=lambda t: t["id"])
    # data blocks (gnuplot "index"): 0 running, 1 blocked elsewhere, then
    # per lock slot (top locks, then the others): waiting, held
    blocks = [[] for _ in range(2 + 2 * (len(top) + 1))]
    for y, t in enumerate(shown):
        def box(b, t0, t1, h):
            t0, t1 = min(t0, t_end), min(t1, t_end)
            if t1 > t0:
                blocks[b].append("%.6f %d %.6f %.2f %d" % (
                    (ms(t0) + ms(t1)) / 2, y, (ms(t1) - ms(t0)) / 2, h,
                    t["id"]))
        box(0, t["start"], t["end"], 0.08)
        for kind, site, t0, t1 in t["ev"]:
            if kind in (EV_COND, EV_JOIN):
                box(1, t0, t1, 0.08)
            else:
                k = lockslot(site)
                box(2 + 2 * k + (kind == EV_HOLD), t0, t1,
                    0.38 if kind == EV_HOLD else 0.25)
    idle, serial = idle_curve(p, t_begin, t_end, PLOT_BINS)
    tmp = None
    if keep:
        d = keep
    else:
        tmp = tempfile.TemporaryDirectory(prefix="rcl-prof-plot.")
        d = tmp.name
    tl, idl, gp = (os.path.join(d, n) for n in
                   ("plot-timeline.dat", "plot-idle.dat", "plot.gp"))
    labels = [l.name for l in top] + ["other locks"]
    try:
        with open(tl, "w") as f:
            f.write("# rcl-prof timeline of pid %d: x_ms y(thread row) "
                    "half_width_ms half_height thread_life\n" % p["pid"])
            names = ["running", "blocked (cond. variable, join)"]
            for i, lab in enumerate(labels):
                names += ["waiting: " + lab, "holding: " + lab]
            for b, rows in enumerate(blocks):
                f.write("# block %d: %s\n" % (b, names[b]))
                f.write("\n".join(rows) + ("\n" if rows else "") +
                        ("NaN NaN NaN NaN NaN\n" if not rows else "") +
                        "\n\n")
        with open(idl, "w") as f:
            f.write("# time_ms idle_pct serialising_share half_width_ms "
                    "(ncpu %d: serialising while at most %d can be busy "
                    "and a thread waits for a lock)\n"
                    % (p["ncpu"], p["serial_max"]))
            w = (ms(t_end) - ms(t_begin)) / PLOT_BINS
            for i, v in enumerate(idle):
                f.write("%.6f %.2f %.3f %.6f\n" % (
                    ms(t_begin) + (i + 0.5) * w, v, serial[i], w / 2))
        with open(gp, "w") as f:
            f.write(plot_script(p, shown, top, names, blocks, path, tl, idl,
                                ms(t_begin), ms(t_end), note))
    except OSError as e:
        raise Error("cannot write the plot data in %s: %s" % (d, e.strerror))
    try:
        r = subprocess.run(["gnuplot", gp], capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        raise Error("--plot: gnuplot failed: %s" % e)
    finally:
        if tmp:
            tmp.cleanup()
    if r.returncode != 0:
        raise Error("--plot: gnuplot failed: %s" % (
            r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1])


def gq(s):
    """A gnuplot string literal."""
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def plot_script(p, shown, top, names, blocks, png, tl, idl, t0_ms, t_ms,
                note):
    n = len(shown)
    height = 260 + 22 * n + 18 * (2 + 2 * len(top))
    top_frac = (height - 200.0) / height
    thr = 100.0 * (1 - p["serial_max"] / p["ncpu"])
    g = ['set terminal pngcairo size 1200,%d font "sans,10" noenhanced'
         % height,
         "set output %s" % gq(png),
         "set multiplot",
         "set lmargin 12", "set rmargin 4",
         # the timeline, above
         "set origin 0,%f" % (1 - top_frac),
         "set size 1,%f" % top_frac,
         "set title %s" % gq("rcl-prof: pid %d (%s), %d thread(s) shown; "
                             "bars: held (tall), waiting (medium), running "
                             "(thin line)%s" % (p["pid"],
                                                os.path.basename(p["exe"]),
                                                n, note)),
         "set xrange [%f:%f]" % (t0_ms, t_ms), "set format x ''",
         "set yrange [%f:%f]" % (n - 0.5, -0.5),
         "set ytics (%s)" % ", ".join('"T%d" %d' % (t["id"], y)
                                      for y, t in enumerate(shown)),
         "set key outside bottom center horizontal maxrows 3 font ',9'",
         "set style fill solid 1.0 noborder",
         "set grid xtics"]
    plots = []
    colours = COLOURS[:len(top)] + [COLOURS[-1]]
    for b, rows in enumerate(blocks):
        if not rows:
            continue
        if b == 0:
            style = 'fc rgb "#a0a0a0"'
        elif b == 1:
            style = 'fc rgb "#e0e0e0"'
        else:
            k, held = divmod(b - 2, 2)
            c = colours[min(k, len(colours) - 1)]
            style = 'fc rgb "%s"%s' % (c, "" if held else
                                       " fs transparent pattern 4 border")
        plots.append("%s index %d using 1:2:3:4 with boxxyerror %s "
                     "title %s" % (gq(tl), b, style, gq(names[b])))
    g.append("plot " + ", \\\n     ".join(plots))
    g += ["set origin 0,0", "set size 1,%f" % (1 - top_frac),
          "unset title", "set key inside top right font ',9'",
          "set format x '%g'",
          "set xlabel 'time since the process started (ms)'",
          "set yrange [0:140]", "set ytics (0, 50, 100)",
          "set ylabel 'CPUs idle (%)'",
          "set style fill solid 1.0 noborder",
          "plot %s using 1:2 with filledcurves x1 fc rgb '#f4b6b6' "
          "title 'CPUs idle: %d CPUs less the runnable threads', "
          "%s using 1:($3 >= 0.5 ? $2 : 1/0):($4 * 2) with boxes "
          "fc rgb '#b22222' title 'serialising: at most %d busy while "
          "threads wait for a lock', "
          "%f with lines dt 2 lc rgb 'black' notitle"
          % (gq(idl), p["ncpu"], gq(idl), p["serial_max"], thr),
          "unset multiplot"]
    return "\n".join(g) + "\n"
