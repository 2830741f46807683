"""Entry point for `python -m oracle`.

Once `main` returns, the answer is printed and every container it started
is removed: nothing is left to do but exit. So the process exits at once
(`os._exit`, after flushing what it printed) instead of tearing down the
pydantic, the task and the engine client module by module, which took about 40 ms
of every grade a user waits for.

The cyclic garbage collector is off for the same reason: start-up imports
some 250 modules whose objects all live until that exit, so the collections
their allocations trigger (about 50 per grade) find nothing and cost some
10% of the imports. A grade itself leaves a dozen cyclic objects, so even a
long batch holds on to next to nothing.

Pydantic's plug-ins are off (`PYDANTIC_DISABLE_PLUGINS`, unless the caller set
it, to anything, empty included): looking for them reads the entry points of
every distribution installed beside the oracle, at the first model the grader
defines, and a grader's models need none. In-process callers (`oracle.grade`)
keep whatever plug-ins their process has.
"""

import gc
import os
import sys

gc.disable()
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from oracle.cli import EXIT_READER_GONE, main  # noqa: E402  (after gc.disable: the imports are what it spares)

code = main()
try:
    sys.stdout.flush()
    sys.stderr.flush()
except OSError:  # a reader that went away (a closed pipe): the exit status Python itself gives
    code = EXIT_READER_GONE
os._exit(code)
