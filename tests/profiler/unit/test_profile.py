# SPDX-License-Identifier: MIT
"""librcl_profile: the reader on good, old-version, missing-verdict,
unknown-verdict and malformed profiles; the writer."""
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

import librcl_profile as lp
from helpers import lock_entry, profile_doc


class ReadGood(unittest.TestCase):
    def test_typed_records(self):
        p = lp.from_dict(profile_doc(), "p.json")
        self.assertIsInstance(p, lp.Profile)
        self.assertEqual(p.version, 1)
        self.assertEqual(p.command, ["./app", "-n"])
        self.assertEqual(p.thresholds.upper, 60.0)
        self.assertEqual(p.global_.wrapper_calls["pthread_mutex_lock"], 1000)
        self.assertEqual(p.processes[0].pid, 100)
        self.assertIs(p.processes[0].profiled, True)
        lk = p.locks[0]
        self.assertIsInstance(lk, lp.Lock)
        self.assertEqual((lk.name, lk.verdict, lk.line), ("g_heavy",
                                                          lp.RCL_RECOMMENDED,
                                                          12))
        self.assertTrue(lk.rcl_recommended)
        self.assertIsInstance(lk.hold_ns, lp.Totals)
        self.assertEqual(lk.hold_ns.avg, 700000.0)
        self.assertIsInstance(lk.release_sites[0], lp.ReleaseSite)
        self.assertEqual(lk.release_sites[0].releases, 7)
        self.assertIsNone(lk.misses_per_cs)
        self.assertIs(p.lock("g_heavy"), lk)
        self.assertIsNone(p.lock("nothing"))

    def test_round_trip_is_identical(self):
        doc = profile_doc()
        text = json.dumps(doc, indent=1) + "\n"
        self.assertEqual(lp.dumps(lp.loads(text, "p.json")), text)

    def test_minimal_entries(self):
        # hand-written profiles: only version, locks, name and verdict
        p = lp.from_dict({"version": 1, "locks": [
            {"name": "m", "verdict": "no"},
            {"name": "n", "verdict": "may help", "file": "a.c", "line": 3}]})
        self.assertEqual([l.verdict for l in p.locks], ["no", "may help"])
        self.assertIsNone(p.locks[0].rank)
        self.assertIsNone(p.thresholds)
        self.assertFalse(p.locks[1].rcl_recommended)

    def test_unknown_keys_are_kept(self):
        doc = profile_doc(future={"x": 1})
        doc["locks"][0]["new_field"] = [1, 2]
        p = lp.from_dict(doc)
        self.assertEqual(p.extra, {"future": {"x": 1}})
        self.assertEqual(p.locks[0].extra, {"new_field": [1, 2]})
        out = lp.to_dict(p)
        self.assertEqual(out["future"], {"x": 1})
        self.assertEqual(out["locks"][0]["new_field"], [1, 2])
        self.assertEqual(list(out)[-1], "future")

    def test_read_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            with open(path, "w") as f:
                json.dump(profile_doc(), f)
            self.assertEqual(lp.read(path).locks[0].name, "g_heavy")


class Refused(unittest.TestCase):
    def refused(self, doc, *parts):
        with self.assertRaises(lp.ProfileError) as cm:
            lp.from_dict(doc, "p.json")
        msg = str(cm.exception)
        self.assertTrue(msg.startswith("p.json: "), msg)
        self.assertNotIn("\n", msg)
        for part in parts:
            self.assertIn(part, msg)
        return msg

    def test_is_a_value_error(self):
        self.assertTrue(issubclass(lp.ProfileError, ValueError))

    def test_no_version(self):
        doc = profile_doc()
        del doc["version"]
        self.refused(doc, "no schema version", '"version": 1')

    def test_old_and_new_versions(self):
        for v in (0, 2, 10):
            self.refused(profile_doc(version=v), "schema version %d," % v,
                         "knows version 1 only")

    def test_version_not_an_integer(self):
        for v, shown in (("1", '"1"'), (1.0, "1.0"), (True, "true"),
                         (None, "null")):
            self.refused(profile_doc(version=v),
                         "schema version %s is not an integer" % shown)

    def test_not_an_object(self):
        self.refused([lock_entry()], "not a profile", "not a list")

    def test_missing_verdict(self):
        e = lock_entry(name="hot")
        del e["verdict"]
        self.refused(profile_doc([lock_entry(), e]),
                     'locks[1] ("hot"): no verdict', '"RCL recommended"')
        self.refused(profile_doc([lock_entry(verdict=None)]),
                     'locks[0] ("g_heavy"): no verdict')

    def test_unknown_verdict(self):
        for v in ("rcl", "yes", "true", "rcl recommended", "RCL"):
            self.refused(profile_doc([lock_entry(verdict=v)]),
                         'locks[0] ("g_heavy"): unknown verdict "%s"' % v)
        self.refused(profile_doc([lock_entry(verdict=1)]),
                     "unknown verdict 1")

    def test_malformed_entries(self):
        e = lock_entry()
        del e["name"]
        self.refused(profile_doc([e]), 'locks[0]: no "name"')
        self.refused(profile_doc(["x"]), "locks[0]: expected an object, "
                     "not a string")
        self.refused(profile_doc([lock_entry(line="12")]),
                     'locks[0] ("g_heavy").line: expected an integer, '
                     'not a string')
        self.refused(profile_doc([lock_entry(acquisitions=1.5)]),
                     ".acquisitions: expected an integer")
        self.refused(profile_doc([lock_entry(acquisitions=True)]),
                     ".acquisitions: expected an integer, not a boolean")
        self.refused(profile_doc([lock_entry(hold_ns=[1, 2, 3])]),
                     ".hold_ns: expected an object, not a list")
        self.refused(profile_doc([lock_entry(hold_ns={"total": 1})]),
                     '.hold_ns: no "avg"')
        self.refused(profile_doc([lock_entry(backtrace=["a", 3])]),
                     ".backtrace[1]: expected a string, not a number")
        self.refused(profile_doc([lock_entry(
            release_sites=[{"site": "a", "share": "x"}])]),
            ".release_sites[0].share: expected a number")

    def test_malformed_top_level(self):
        self.refused(profile_doc(locks=3),
                     'expected a list of lock entries in "locks", '
                     'not a number')
        doc = profile_doc()
        del doc["locks"]
        self.refused(doc, "not nothing")
        self.refused(profile_doc(thresholds={"lower": "x", "upper": 1}),
                     "thresholds.lower: expected a number")
        self.refused(profile_doc(command="./app"),
                     "command: expected a list, not a string")
        doc = profile_doc()
        doc["global"]["wrapper_calls"]["pthread_mutex_lock"] = "many"
        self.refused(doc, "global.wrapper_calls.pthread_mutex_lock: "
                     "expected an integer")

    def test_not_json(self):
        with self.assertRaises(lp.ProfileError) as cm:
            lp.loads('{"version": 1,', "p.json")
        self.assertIn("p.json: not valid JSON", str(cm.exception))

    def test_missing_file(self):
        with self.assertRaises(lp.ProfileError) as cm:
            lp.read("/nonexistent/p.json")
        self.assertEqual(str(cm.exception),
                         "/nonexistent/p.json: No such file or directory")


class Write(unittest.TestCase):
    def test_order_and_nulls(self):
        p = lp.from_dict(profile_doc())
        out = lp.to_dict(p)
        self.assertEqual(list(out), ["version", "tool", "command",
                                     "exit_status", "thresholds", "global",
                                     "processes", "locks", "colocation"])
        self.assertEqual(list(out["locks"][0]), list(lock_entry()))
        # nullable fields are written as null, absent others left out
        m = lp.to_dict(lp.from_dict({"version": 1, "locks": [
            {"name": "m", "verdict": "no"}]}))
        self.assertEqual(m["locks"][0]["symbol"], None)
        self.assertNotIn("rank", m["locks"][0])
        self.assertNotIn("thresholds", m)

    def test_write_file_and_stdout(self):
        p = lp.from_dict(profile_doc())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.json")
            lp.write(p, path)
            self.assertEqual(os.listdir(d), ["out.json"])  # no .tmp left
            self.assertEqual(lp.read(path), p)
        buf = io.StringIO()
        with redirect_stdout(buf):
            lp.write(p, "-")
        self.assertEqual(json.loads(buf.getvalue()), profile_doc())

    def test_write_error(self):
        with self.assertRaises(lp.ProfileError) as cm:
            lp.write(lp.from_dict(profile_doc()), "/nonexistent/d/p.json")
        self.assertIn("cannot write /nonexistent/d/p.json", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
