# SPDX-License-Identifier: MIT
# Shared set-up for the rcl-prof tests (sourced).  Gives:
#   RCLPROF   the build tree's rcl-prof
#   PY        python3
#   T         a scratch directory, removed at exit
#   fail MSG  print and exit 1
: "${abs_top_builddir:?run through make check}"
RCLPROF=$abs_top_builddir/profiler/rcl-prof
PY=${PYTHON3:-python3}
B=$abs_top_builddir/tests/profiler
T=$(mktemp -d "${TMPDIR:-/tmp}/t-prof.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ -x "$RCLPROF" ] || fail "$RCLPROF not built"
"$PY" -c 'import json' 2>/dev/null || { echo "SKIP: no python3"; exit 77; }
# Sanitized test programs: leaks of the program itself are not ours to
# judge here, and the profiler comes before the sanitizer runtime.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

# jq-like checks: `check FILE 'python expression over p (the profile)'`
# with helpers lock(name) and fails with the expression on error.
check() {
	"$PY" - "$@" <<'EOF' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
def lock(name):
    for l in p["locks"]:
        if l["name"] == name or l.get("symbol") == name:
            return l
    raise SystemExit("FAIL: no lock named %r in %s" % (name, [l["name"] for l in p["locks"]]))
for expr in sys.argv[2:]:
    if not eval(expr):
        for l in p["locks"]:
            sys.stderr.write("  %s: inst %d acq %d cont %d %%CS %.2f %s\n" % (
                l["name"], l["instances"], l["acquisitions"], l["contended"],
                l["pct_time_in_cs"], l["verdict"]))
        raise SystemExit("FAIL: %s" % expr)
EOF
}
