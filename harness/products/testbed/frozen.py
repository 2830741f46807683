"""Last of the forkserver's preloads: what it imported is left out of every forked controller's garbage collection."""

import gc

gc.freeze()
