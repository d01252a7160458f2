# SPDX-License-Identifier: MIT
"""rcl_prof.table: number formats and the ranked table."""
import unittest

from helpers import lock_entry, profile
from rcl_prof.table import fmt_count, fmt_ns, table_text


class Formats(unittest.TestCase):
    def test_fmt_ns(self):
        self.assertEqual(fmt_ns(0), "0ns")
        self.assertEqual(fmt_ns(999.4), "999ns")
        self.assertEqual(fmt_ns(1000), "1us")
        self.assertEqual(fmt_ns(87900.0), "87.9us")
        self.assertEqual(fmt_ns(2.38e9), "2.38s")
        self.assertEqual(fmt_ns(37.8e6), "37.8ms")

    def test_fmt_count(self):
        self.assertEqual(fmt_count(0), "0")
        self.assertEqual(fmt_count(999), "999")
        self.assertEqual(fmt_count(840000), "840k")
        self.assertEqual(fmt_count(1234567), "1.23M")
        self.assertEqual(fmt_count(3e9), "3G")


class Table(unittest.TestCase):
    def locks(self):
        return [
            lock_entry(),
            lock_entry(id="b2", name="x" * 50, kind="init", type="rwlock-read",
                       symbol=None, rank=2, instances=8, acquisitions=2500000,
                       contention_pct=12.345, pct_time_in_cs=30.0,
                       serialising_pct=51.4, misses_per_cs=3.25,
                       verdict="may help", blame_ns=0.0, release_sites=[],
                       hold_ns={"total": 1.0, "avg": 1500.0, "max": 2.0},
                       wait_ns={"total": 1.0, "avg": 2.5e6, "max": 2.0}),
        ]

    def test_rows(self):
        text = table_text(profile(self.locks()), 0)
        lines = text.splitlines()
        self.assertEqual(lines[0], "rcl-prof: 1 process(es), 2 thread(s), "
                         "wall 1s, 1k acquisitions, 50.0% of thread time "
                         "in critical sections")
        self.assertEqual(lines[1], "verdict thresholds: may help >= 15%, "
                         "RCL recommended >= 60% (default); misses/CS: n/a: "
                         "no hardware counters")
        hdr, r1, r2 = lines[2:5]
        self.assertEqual(hdr.split(), ["#", "site", "type", "inst", "acq",
                                       "cont%", "%CS", "ser%", "hold",
                                       "wait", "misses/CS", "verdict"])
        self.assertEqual(r1.split(), ["1", "g_heavy", "mutex", "1", "1k",
                                      "1.0", "70.0", "0", "700us", "0ns",
                                      "n/a", "RCL", "recommended"])
        # a long name keeps its end; rwlock sides are short; misses shown
        self.assertEqual(r2.split(), ["2", "..." + "x" * 41, "rw:read", "8",
                                      "2.5M", "12.3", "30.0", "51", "1.5us",
                                      "2.5ms", "3.2", "may", "help"])
        # columns line up: numbers right-aligned under their header
        for col in ("inst", "cont%", "misses/CS"):
            end = hdr.index(col) + len(col)
            self.assertNotEqual(r1[end - 1], " ")
            self.assertNotEqual(r2[end - 1], " ")
            self.assertEqual(r1[end:end + 1], " ")
            self.assertEqual(r2[end:end + 1], " ")
        # verdicts are left-aligned in the last column
        self.assertEqual(r1.index("RCL"), r2.index("may"))
        self.assertEqual(lines[5], "#1 g_heavy: waiters blocked 2.5ms in "
                         "total, 84% while held by the section released at "
                         "app.c:40 work")
        self.assertEqual(len(lines), 6)

    def test_top(self):
        text = table_text(profile(self.locks()), 1)
        self.assertNotIn("xxx", text)
        self.assertIn("g_heavy", text)

    def test_no_lock(self):
        text = table_text(profile([]), 0)
        self.assertTrue(text.endswith("no lock was used\n"))
        self.assertEqual(len(text.splitlines()), 3)

    def test_colocation_advice(self):
        p = profile(colocation={
            "min_acquisitions": 100, "share": 0.75, "threads": [],
            "groups": [{"pid": 1, "lock": "a", "threads": [1, 3],
                        "min_share": 0.9},
                       {"pid": 1, "lock": "b", "threads": [2, 4],
                        "min_share": 1.0}]})
        lines = table_text(p, 0).splitlines()
        self.assertTrue(lines[-3].startswith("co-location: 2 groups of "
                                             "threads each take one lock "
                                             "for 75%+"))
        self.assertEqual(lines[-2:], ["  a: threads 1 3", "  b: threads 2 4"])


if __name__ == "__main__":
    unittest.main()
