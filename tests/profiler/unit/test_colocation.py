# SPDX-License-Identifier: MIT
"""rcl_prof.colocation: groups from the thread-by-lock matrix, the plan."""
import unittest

from helpers import lock_entry, profile
from rcl_prof.colocation import colocation, plan_text


def proc(pid, trows, sites=((1, "ida"), (2, "idb"), (3, "idc"))):
    """A process whose site N is the report's lock of id ID."""
    return {"pid": pid, "site_rows": {s: {"id": i} for s, i in sites},
            "trows": trows}


def report(contended=(("ida", 5), ("idb", 5), ("idc", 0))):
    return profile([lock_entry(id=i, name=i[2:], contended=c, rank=n)
                    for n, (i, c) in enumerate(contended, 1)])


class Groups(unittest.TestCase):
    def test_two_groups(self):
        # threads 1, 3 mostly on a (80%), 2, 4 only on b; main on both
        trows = [(0, [(1, 500), (2, 500)]),
                 (1, [(1, 800), (2, 200)]), (2, [(2, 1000)]),
                 (3, [(1, 900), (2, 100)]), (4, [(2, 400)])]
        c = colocation([proc(7, trows)], report())
        self.assertEqual([(g.pid, g.lock, g.threads, g.min_share)
                          for g in c.groups],
                         [(7, "a", [1, 3], 0.8), (7, "b", [2, 4], 1.0)])
        self.assertEqual((c.min_acquisitions, c.share), (100, 0.75))
        # the matrix: every thread with its locks, most used first
        self.assertEqual([(t.thread, [(x.lock, x.id, x.count)
                                      for x in t.acquisitions])
                          for t in c.threads][:2],
                         [(0, [("a", "ida", 500), ("b", "idb", 500)]),
                          (1, [("a", "ida", 800), ("b", "idb", 200)])])
        self.assertEqual(len(c.threads), 5)

    def test_one_group_is_no_advice(self):
        trows = [(1, [(1, 800)]), (2, [(1, 900)]), (3, [(2, 50), (1, 60)])]
        self.assertEqual(colocation([proc(7, trows)], report()).groups, [])

    def test_rules(self):
        trows = [
            (0, [(1, 1000)]), (5, [(1, 1000)]),  # main thread: never
            (1, [(2, 99)]), (2, [(2, 99)]),      # too few acquisitions
            (3, [(1, 700), (2, 300)]),           # 70% < 75%
            (4, [(1, 760), (2, 240)]),           # 76%: in
            (6, [(3, 500)]), (7, [(3, 500)]),    # uncontended lock
            (8, [(2, 100)]), (9, [(2, 100)]),    # exactly 100: in
        ]
        c = colocation([proc(7, trows)], report())
        self.assertEqual([(g.lock, g.threads) for g in c.groups],
                         [("a", [4, 5]), ("b", [8, 9])])

    def test_unknown_sites_and_processes(self):
        trows = [(1, [(1, 800), (9, 5000)])]  # site 9: no lock of the report
        c = colocation([proc(7, trows), {"pid": 8, "site_rows": {},
                                         "trows": trows}], report())
        self.assertEqual([(t.pid, len(t.acquisitions)) for t in c.threads],
                         [(7, 1)])

    def test_groups_sorted_across_processes(self):
        t1 = [(1, [(1, 800)]), (2, [(1, 800)]), (3, [(2, 800)]),
              (4, [(2, 800)])]
        c = colocation([proc(9, t1), proc(3, t1)], report())
        self.assertEqual([(g.pid, g.threads) for g in c.groups],
                         [(3, [1, 2]), (3, [3, 4]), (9, [1, 2]), (9, [3, 4])])


class Plan(unittest.TestCase):
    def groups(self):
        trows = [(1, [(1, 800)]), (2, [(1, 800)]), (3, [(2, 800)]),
                 (4, [(2, 800)]), (5, [(3, 800)]), (6, [(3, 800)])]
        rep = report((("ida", 1), ("idb", 1), ("idc", 1)))
        return colocation([proc(9, trows), proc(3, trows[:4])], rep).groups

    def test_plan(self):
        text = plan_text(self.groups(), [2, 5, 6])
        lines = text.splitlines()
        self.assertTrue(lines[0].startswith("# rcl-run --colocate plan"))
        # the first process only (pid 3), a CPU each
        self.assertEqual(lines[1:], ["# a: at least 100% of their "
                                     "acquisitions", "cpu 2: 1 2",
                                     "# b: at least 100% of their "
                                     "acquisitions", "cpu 5: 3 4"])

    def test_round_robin(self):
        groups = [g for g in self.groups() if g.pid == 9]
        lines = [l for l in plan_text(groups, [4]).splitlines()
                 if l.startswith("cpu")]
        self.assertEqual(lines, ["cpu 4: 1 2", "cpu 4: 3 4", "cpu 4: 5 6"])

    def test_no_groups(self):
        self.assertIsNone(plan_text([], [0]))


if __name__ == "__main__":
    unittest.main()
