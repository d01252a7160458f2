# SPDX-License-Identifier: MIT
"""librcl_profile: the JSON profile shared by rcl-prof (which writes it)
and rcl-refactor (which reads it for --locks PROFILE.json).

    prof = librcl_profile.read("rcl-prof.json")   # ProfileError if unusable
    for lock in prof.locks:
        lock.name, lock.verdict, lock.file, lock.line, lock.hold_ns.avg
    librcl_profile.write(prof, "copy.json")

Schema: docs/PROFILER.md, "JSON profile".  Installed once, in the
package data directory, next to rcl_prof and rcl_refactor.
"""
from .profile import (RCL_RECOMMENDED, SCHEMA_VERSION, VERDICTS, Colocation,
                      ColocCount, ColocGroup, ColocThread, Global, Lock,
                      Process, Profile, ProfileError, ReleaseSite,
                      Thresholds, Totals, dumps, from_dict, loads, read,
                      to_dict, write)

__all__ = ["RCL_RECOMMENDED", "SCHEMA_VERSION", "VERDICTS", "Colocation",
           "ColocCount", "ColocGroup", "ColocThread", "Global", "Lock",
           "Process", "Profile", "ProfileError", "ReleaseSite",
           "Thresholds", "Totals", "dumps", "from_dict", "loads", "read",
           "to_dict", "write"]
