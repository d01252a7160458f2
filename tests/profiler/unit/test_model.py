# SPDX-License-Identifier: MIT
"""rcl_prof.dumps and rcl_prof.model: a hand-written dump (t_verdicts.sh's)
read and turned into the report; malformed dumps; verdicts."""
import json
import os
import tempfile
import unittest

import librcl_profile
from helpers import FakeSymbols, dump_text
from rcl_prof.dumps import load_dump, load_dumps, split_rw_serial
from rcl_prof.errors import Error
from rcl_prof.model import build_report, verdict
from rcl_prof.table import table_text

TH = {"lower": 15.0, "upper": 60.0, "source": "default"}


class Dumps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_load(self):
        p = load_dump(self.write("a.dump", dump_text()))
        self.assertEqual((p["pid"], p["ppid"], p["exe"], p["threads"]),
                         (100, 1, "/nonexistent/app", 2))
        self.assertEqual(sorted(p["sites"]), [1, 2, 3])
        s = p["sites"][1]
        self.assertEqual((s["kind"], s["instances"]), (1, 4))
        self.assertEqual(s["frames"], [(0x1001, None, "/nonexistent/app")])
        self.assertEqual(s["stat"]["acq"], 1000)
        self.assertEqual(s["stat"]["cs"], 1400000000)
        self.assertEqual(p["ns"](1500), 1500.0)
        self.assertEqual(p["calls"]["pthread_mutex_lock"], 3)

    def test_malformed(self):
        bad = {
            "x.dump": ("hello\nend\n", "x.dump: not a profiler dump"),
            "t.dump": (dump_text().replace("end\n", ""),
                       "t.dump: truncated dump"),
            "l.dump": (dump_text().replace("threads 2", "threads two"),
                       "l.dump:8: malformed line"),
            "k.dump": (dump_text().replace("threads 2", "bogus 2"),
                       "k.dump:8: malformed line"),
        }
        for name, (text, msg) in bad.items():
            with self.assertRaises(Error) as cm:
                load_dump(self.write(name, text))
            self.assertTrue(str(cm.exception).endswith(msg),
                            str(cm.exception))

    def test_load_dumps_only_dump_files(self):
        self.write("rclprof.100.dump", dump_text())
        self.write("notes.txt", "x")
        procs = load_dumps(self.d)
        self.assertEqual(len(procs), 1)
        self.assertEqual(procs[0]["acquisitions"], 3000)
        with self.assertRaises(Error):
            load_dumps(os.path.join(self.d, "missing"))

    def test_rw_serial_split_by_blame(self):
        st = lambda serial, blame: {"stat": {"serial": serial,
                                             "blame": blame}}
        p = {"rwpairs": [(1, 2), (3, 9)],
             "sites": {1: st(1000, 300), 2: st(0, 100), 3: st(50, 0)}}
        split_rw_serial(p)
        self.assertEqual((p["sites"][1]["stat"]["serial"],
                          p["sites"][2]["stat"]["serial"]), (750, 250))
        self.assertEqual(p["sites"][3]["stat"]["serial"], 50)


class Report(unittest.TestCase):
    def report(self, th=TH, dumps=(dump_text(),)):
        with tempfile.TemporaryDirectory() as d:
            for i, text in enumerate(dumps):
                with open(os.path.join(d, "%d.dump" % i), "w") as f:
                    f.write(text.replace("pid 100", "pid %d" % (100 + i)))
            procs = load_dumps(d)
        return build_report(procs, th, ["./app"], 0, FakeSymbols(),
                            "rcl-prof 9.9")

    def test_report(self):
        rep = self.report()
        self.assertIsInstance(rep, librcl_profile.Profile)
        self.assertEqual((rep.version, rep.tool, rep.command),
                         (1, "rcl-prof 9.9", ["./app"]))
        self.assertEqual([l.verdict for l in rep.locks],
                         ["RCL recommended", "may help", "no"])
        self.assertEqual([round(l.pct_time_in_cs, 6) for l in rep.locks],
                         [70, 30, 10])
        self.assertEqual([l.rank for l in rep.locks], [1, 2, 3])
        self.assertEqual([l.instances for l in rep.locks], [4, 1, 2])
        l = rep.locks[0]
        self.assertEqual(l.name, "file.c:4096 fn_1000")  # FakeSymbols
        self.assertEqual((l.file, l.line, l.function),
                         ("file.c", 4096, "fn_1000"))
        self.assertEqual((l.contention_pct, l.trylock_failures), (1.0, 2))
        self.assertAlmostEqual(l.hold_ns.avg, 700000)
        self.assertIsNone(l.misses_per_cs)
        self.assertEqual(l.hold_histogram, [0, 0, 0, 1000])
        self.assertEqual(rep.global_.pct_time_in_cs, 50.0)
        self.assertEqual(rep.processes[0].ended, "exit")
        self.assertEqual(len({l.id for l in rep.locks}), 3)

    def test_processes_merge_by_site(self):
        # the same sites in two processes are one row each
        rep = self.report(dumps=(dump_text(), dump_text()))
        self.assertEqual(len(rep.locks), 3)
        self.assertEqual(rep.locks[0].acquisitions, 2000)
        self.assertEqual(rep.locks[0].instances, 8)
        self.assertEqual(rep.global_.processes, 2)

    def test_thresholds(self):
        th = {"lower": 5.0, "upper": 25.0, "source": "t.json"}
        rep = self.report(th)
        self.assertEqual([l.verdict for l in rep.locks],
                         ["RCL recommended", "RCL recommended", "may help"])
        self.assertEqual(rep.thresholds.source, "t.json")

    def probed(self, probes):
        """t_verdicts.sh's dump with the off-CPU probe's fields on its
        stat lines: (probes, probe_wall, probe_block, probe_nblock) per
        site."""
        lines = []
        for ln in dump_text().splitlines():
            f = ln.split()
            if f and f[0] == "stat":
                f += ["0"] * (20 - len(f)) + [str(v) for v in probes[int(f[1])]]
            lines.append(" ".join(f))
        return "\n".join(lines) + "\n"

    def test_blocked_sections(self):
        # site 1 (70% CS): 90% of its probed time blocked -> 7% on CPU,
        # "no"; site 2 (30%): 4 probes only, all blocked: too few to
        # change its verdict; site 3 (10%): 10% blocked, "no" as before
        rep = self.report(dumps=(self.probed({1: (20, 10**7, 9 * 10**6, 15),
                                              2: (4, 10**6, 10**6, 4),
                                              3: (50, 10**7, 10**6, 5)}),))
        by = {l.name: l for l in rep.locks}
        l1, l2, l3 = (by["file.c:%d fn_%x" % (o, o)]
                      for o in (4096, 8192, 12288))
        self.assertEqual((l1.verdict, l1.probed_holds), ("no", 20))
        self.assertAlmostEqual(l1.blocked_pct, 90.0)
        self.assertIn("90% of its hold time blocked off CPU (15 of 20 probed",
                      l1.verdict_note)
        self.assertEqual(l1.blocked_holds_pct, 75.0)
        self.assertIn("not 'RCL recommended'", l1.verdict_note)
        self.assertAlmostEqual(l1.pct_time_in_cs, 70.0)  # %CS unchanged
        self.assertEqual((l2.verdict, l2.verdict_note), ("may help", None))
        self.assertEqual((l2.probed_holds, l2.blocked_pct), (4, 100.0))
        self.assertEqual((l3.verdict, l3.verdict_note), ("no", None))
        self.assertAlmostEqual(l3.blocked_pct, 10.0)
        self.assertEqual(l3.blocked_holds_pct, 10.0)
        text = table_text(rep, 0)
        self.assertIn("blocked off CPU", text)
        # a dump from before the probe: no blocked share, no note
        l = self.report().locks[0]
        self.assertEqual((l.blocked_pct, l.blocked_holds_pct, l.verdict_note,
                          l.probed_holds), (None, None, None, 0))
        doc = json.loads(librcl_profile.dumps(self.report()))
        self.assertNotIn("blocked_pct", doc["locks"][0])

    def wrapped(self, syms):
        """t_verdicts.sh's dump, its three sites initialised through one
        function (frame 0, file.c:4096 fn_1000) called from three places
        (frame 1: fn_2001, fn_4001, fn_6001)."""
        text = dump_text()
        for sid in (1, 2, 3):
            text = text.replace(
                "frame %d 0 %#x - /nonexistent/app\n" % (sid, 4096 * sid + 1),
                "frame %d 0 0x1001 - /nonexistent/app\n"
                "frame %d 1 %#x - /nonexistent/app\n"
                % (sid, sid, 0x2000 * sid + 2))
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "0.dump"), "w") as f:
                f.write(text)
            procs = load_dumps(d)
        return build_report(procs, TH, ["./app"], 0, syms, "rcl-prof 9.9")

    def test_wrapper_named_by_its_caller(self):
        rep = self.wrapped(FakeSymbols(wrappers=["fn_1000"]))
        self.assertEqual([l.name for l in rep.locks],
                         ["file.c:%d fn_%x" % (0x2000 * i + 1,
                                               0x2000 * i + 1)
                          for i in (1, 2, 3)])
        l = rep.locks[0]
        self.assertEqual((l.file, l.line, l.function),
                         ("file.c", 0x2001, "fn_2001"))
        self.assertEqual(l.wrappers, ["file.c:4096 fn_1000"])
        self.assertEqual(l.backtrace,
                         ["file.c:4096 fn_1000", "file.c:8193 fn_2001"])
        # no wrapper known (no debug information): one name, as before
        rep = self.wrapped(FakeSymbols())
        self.assertEqual({l.name for l in rep.locks}, {"file.c:4096 fn_1000"})
        self.assertEqual([l.wrappers for l in rep.locks], [[], [], []])
        self.assertEqual(len({l.id for l in rep.locks}), 3)

    def test_inlined_wrapper(self):
        # an inline wrapper (xz's mythread_mutex_init): its caller is a
        # position of the same frame (addr2line -i)
        inl = {("/nonexistent/app", 0x1000): [
            ("mythread_init", "/s/mythread.h", 187),
            ("caller", "/s/coder.c", 40)]}
        rep = self.wrapped(FakeSymbols(inl=inl, wrappers=["mythread_init"]))
        self.assertEqual({l.name for l in rep.locks}, {"coder.c:40 caller"})
        self.assertEqual(rep.locks[0].wrappers,
                         ["mythread.h:187 mythread_init"])
        # a wrapper calling a wrapper: both skipped
        rep = self.wrapped(FakeSymbols(
            inl=inl, wrappers=["mythread_init", "caller"]))
        self.assertEqual([l.name for l in rep.locks],
                         ["file.c:%d fn_%x" % (0x2000 * i + 1,
                                               0x2000 * i + 1)
                          for i in (1, 2, 3)])
        self.assertEqual(rep.locks[0].wrappers,
                         ["mythread.h:187 mythread_init", "coder.c:40 caller"])

    def test_verdict_edges(self):
        self.assertEqual(verdict(60.0, TH), "RCL recommended")
        self.assertEqual(verdict(59.99, TH), "may help")
        self.assertEqual(verdict(15.0, TH), "may help")
        self.assertEqual(verdict(14.99, TH), "no")
        self.assertEqual(verdict(0.0, {"lower": 0, "upper": 0}),
                         "RCL recommended")


if __name__ == "__main__":
    unittest.main()
