"""Downloading through a page, as a person clicking a link does: one place for every product's page objects."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Locator, Page


class DownloadFailed(AssertionError):
    """The browser started the download but could not finish it (a link answering 404, a cut connection).

    An ``AssertionError``, like a page expectation that never came true: a
    broken download link is the product's failure, never the harness's.
    """


def click_download(page: Page, link: Locator, save_to: Path | None = None) -> bytes:
    """Click ``link``, wait for the download it starts, and return its bytes (also kept at ``save_to``)."""
    with page.expect_download() as info:
        link.click()
    download = info.value
    failure = download.failure()
    if failure is not None:
        raise DownloadFailed(f"the browser could not download {download.url}: {failure}")
    if save_to is not None:
        save_to.parent.mkdir(parents=True, exist_ok=True)
        download.save_as(save_to)
        return save_to.read_bytes()
    return Path(download.path()).read_bytes()
