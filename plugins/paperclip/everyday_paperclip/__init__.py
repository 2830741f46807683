"""The driver for Paperclip (``paperclipai`` on npm), the platform the seed suite was written for.

An install and template (:mod:`.install`), an isolated instance
(:mod:`.instance`), an API client (:mod:`.api`), page objects
(:mod:`.pages`) and credential shapes (:mod:`.secrets`), bound together as
``DRIVER`` (:mod:`.driver`). Paperclip is the product under test: the
driver only configures it and uses its public API and UI.
"""

from .driver import PaperclipDriver

DRIVER = PaperclipDriver()

__all__ = ["DRIVER", "PaperclipDriver"]
