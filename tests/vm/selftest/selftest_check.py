"""The host-side self-tests' one way to count and print a check:
'PASS what' or 'FAIL what: detail' per check, then 'NAME: N passed, N
failed', the line scripts/check.sh's harness suite sums."""


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, what, ok, detail=""):
        if ok:
            self.passed += 1
            print("PASS " + what)
        else:
            self.failed += 1
            print("FAIL " + what + (": " + detail if detail else ""))

    def summary(self, name):
        """Prints the summary line; the exit status for it."""
        print("%s: %d passed, %d failed" % (name, self.passed, self.failed))
        return 1 if self.failed else 0
